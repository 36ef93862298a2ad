import type { ParsedExpression } from "./ast.js";
import { expressionErrorAt } from "./expression-error.js";
import { parseExpression } from "./parse-expression.js";

/** A piece of a template: literal text, or an expression whose value is spliced in. */
export type TemplatePart =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "expression"; readonly expression: ParsedExpression };

/** A string split into text and `${{ }}` expressions. */
export interface Template {
  readonly source: string;
  readonly parts: readonly TemplatePart[];
  /** Set when the string is exactly one `${{ }}` (whitespace around it allowed): its value keeps its type. */
  readonly single?: ParsedExpression;
}

const OPEN = "${{";
const CLOSE = "}}";

/** Whether a string contains a `${{` and so needs parsing. */
export function hasExpression(text: string): boolean {
  return text.includes(OPEN);
}

/**
 * Finds every `${{ ... }}` in a string. A `}}` inside a quoted string does not end the expression,
 * so `${{ '}}' }}` is the text "}}"; write a literal `${{` as `${{ '${{' }}`.
 */
export function parseTemplate(source: string): Template {
  const parts: TemplatePart[] = [];
  let position = 0;
  for (let open = source.indexOf(OPEN); open !== -1; open = source.indexOf(OPEN, position)) {
    if (open > position) parts.push({ kind: "text", text: source.slice(position, open) });
    const start = open + OPEN.length;
    const end = findClose(source, open, start);
    parts.push({ kind: "expression", expression: parseExpression(source, { start, end }) });
    position = end + CLOSE.length;
  }
  if (position < source.length) parts.push({ kind: "text", text: source.slice(position) });
  const expressions = parts.filter((part) => part.kind === "expression");
  const onlyBlankText = parts.every((part) => part.kind === "expression" || part.text.trim() === "");
  const single = expressions.length === 1 && onlyBlankText ? expressions[0]?.expression : undefined;
  return single === undefined ? { source, parts } : { source, parts, single };
}

// A quote or the end of an expression, whichever comes first.
const QUOTE_OR_CLOSE = /["']|\}\}/g;

// Skips quoted strings (and their escapes) so a "}}" inside one is not taken as the end.
function findClose(source: string, open: number, start: number): number {
  QUOTE_OR_CLOSE.lastIndex = start;
  for (let found = QUOTE_OR_CLOSE.exec(source); found !== null; found = QUOTE_OR_CLOSE.exec(source)) {
    if (found[0] === CLOSE) return found.index;
    const quoteAt = found.index;
    const quoteEnd = findQuoteEnd(source, quoteAt);
    if (quoteEnd === -1) {
      throw expressionErrorAt(
        "invalid_expression",
        source,
        open,
        `Unclosed "${OPEN}"`,
        `The quote at column ${quoteAt + 1} starts a string that never ends; close it, then end the expression with }}.`,
      );
    }
    QUOTE_OR_CLOSE.lastIndex = quoteEnd + 1;
  }
  throw expressionErrorAt("invalid_expression", source, open, `Unclosed "${OPEN}"`, "End the expression with }}.");
}

// Where the string opened by the quote at `quoteAt` ends, or -1 if it does not.
function findQuoteEnd(source: string, quoteAt: number): number {
  for (let index = quoteAt + 1; index < source.length; index += 1) {
    const char = source[index];
    if (char === "\\") index += 1;
    else if (char === source[quoteAt]) return index;
  }
  return -1;
}
