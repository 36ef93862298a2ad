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

// Skips quoted strings (and their escapes) so a "}}" inside one is not taken as the end.
function findClose(source: string, open: number, start: number): number {
  let quoteAt = -1;
  for (let index = start; index < source.length; index += 1) {
    const char = source[index];
    if (quoteAt !== -1) {
      if (char === "\\") index += 1;
      else if (char === source[quoteAt]) quoteAt = -1;
    } else if (char === "'" || char === '"') {
      quoteAt = index;
    } else if (source.startsWith(CLOSE, index)) {
      return index;
    }
  }
  const fix =
    quoteAt === -1
      ? "End the expression with }}."
      : `The quote at column ${quoteAt + 1} starts a string that never ends; close it, then end the expression with }}.`;
  throw expressionErrorAt("invalid_expression", source, open, `Unclosed "${OPEN}"`, fix);
}
