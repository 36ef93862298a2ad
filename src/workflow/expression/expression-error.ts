import { ConfigError, type SvcFlowErrorOptions } from "../../errors.js";

/** Stable codes of expression errors: bad syntax, a reference that cannot resolve, a failed evaluation. */
export type ExpressionErrorCode = "invalid_expression" | "invalid_reference" | "expression_failed";

/** A path into a JSON-like value, e.g. `["steps", 1, "with", "prompt"]`. */
export type ValuePath = ReadonlyArray<string | number>;

/** Options of an ExpressionError beyond the base error options. */
export interface ExpressionErrorOptions extends SvcFlowErrorOptions {
  readonly code: ExpressionErrorCode;
  /** The text that was parsed: the expression, or the whole template string it sits in. */
  readonly source?: string;
  /** 1-based column within `source` where the problem is. */
  readonly column?: number;
  /** Where in the workflow value the text was found. */
  readonly location?: ValuePath;
}

/** A `${{ }}` expression is malformed, refers to something that does not exist, or failed to evaluate. */
export class ExpressionError extends ConfigError {
  readonly source?: string;
  readonly column?: number;
  readonly location?: ValuePath;

  constructor(message: string, options: ExpressionErrorOptions) {
    super(message, options);
    this.source = options.source;
    this.column = options.column;
    this.location = options.location;
  }

  /** A copy of this error that says where in the workflow value the expression was found. */
  at(location: ValuePath): ExpressionError {
    if (location.length === 0 || this.location !== undefined) return this;
    const code = this.code as ExpressionErrorCode;
    return new ExpressionError(`At ${formatPath(location)}: ${this.message}`, {
      code,
      source: this.source,
      column: this.column,
      location,
      cause: this.cause,
    });
  }
}

const EXCERPT_RADIUS = 40;

/** Builds an error that points at `offset` (0-based) in `source`: problem, place, then the fix. */
export function expressionErrorAt(
  code: ExpressionErrorCode,
  source: string,
  offset: number,
  problem: string,
  fix?: string,
): ExpressionError {
  const column = offset + 1;
  const place = `at column ${column} of ${excerpt(source, offset)}`;
  const message = fix === undefined ? `${problem} ${place}.` : `${problem} ${place}. ${fix}`;
  return new ExpressionError(message, { code, source, column });
}

/** Formats a value path the way a reader finds it in YAML: `steps[1].with.prompt`. */
export function formatPath(path: ValuePath): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(segment)) text += text === "" ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text === "" ? "(top level)" : text;
}

// Long prompt templates would drown the message; show a window around the column instead.
function excerpt(source: string, offset: number): string {
  if (source.length <= EXCERPT_RADIUS * 2) return JSON.stringify(source);
  const from = Math.max(0, offset - EXCERPT_RADIUS);
  const to = Math.min(source.length, offset + EXCERPT_RADIUS);
  const head = from > 0 ? "…" : "";
  const tail = to < source.length ? "…" : "";
  return `${head}${JSON.stringify(source.slice(from, to))}${tail}`;
}
