import { expressionErrorAt } from "./expression-error.js";

/** Punctuators and operators the tokenizer recognises. */
export type Punctuator =
  | "("
  | ")"
  | "["
  | "]"
  | ","
  | "."
  | "?"
  | ":"
  | "!"
  | "*"
  | "/"
  | "%"
  | "+"
  | "-"
  | "=="
  | "!="
  | "<"
  | "<="
  | ">"
  | ">="
  | "&&"
  | "||"
  | "??";

interface TokenSpan {
  readonly start: number;
  readonly end: number;
}

/** One token of an expression; offsets are 0-based into the tokenized source. */
export type Token =
  | (TokenSpan & { readonly type: "number"; readonly value: number })
  | (TokenSpan & { readonly type: "string"; readonly value: string })
  | (TokenSpan & { readonly type: "name"; readonly value: string })
  | (TokenSpan & { readonly type: "punctuator"; readonly value: Punctuator })
  | (TokenSpan & { readonly type: "end" });

/** A root name or function name: letters, digits and `_`, not starting with a digit. */
export const identifierPattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A name that may follow a dot (`steps.make-poster`): an identifier whose inner hyphens precede a letter. */
export const memberNamePattern = /^[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z_][A-Za-z0-9_]*)*$/;

const NUMBER = /[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y;
const MEMBER_NAME = /[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z_][A-Za-z0-9_]*)*/y;
const TWO_CHAR = new Set(["==", "!=", "<=", ">=", "&&", "||", "??"]);
const ONE_CHAR = new Set("()[],.?:!*/%+-<>");
const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  b: "\b",
  f: "\f",
  v: "\v",
  "0": "\0",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "/": "/",
};
const ESCAPE_HELP = String.raw`Use \n, \t, \r, \\, \', \" or \uXXXX.`;

// A wrong operator from another language gets a message that names the right one.
const LONG_MISTAKES: ReadonlyArray<readonly [string, string, string]> = [
  ["===", 'Unknown operator "==="', 'Write "==": comparison is always strict.'],
  ["!==", 'Unknown operator "!=="', 'Write "!=": comparison is always strict.'],
  ["?.", 'Unknown operator "?."', 'Write "." instead: reading a property of a missing value already gives undefined.'],
];
// Most punctuators ("." above all) start none of them, so the list is read only for those that may.
const MISTAKE_STARTS = new Set(LONG_MISTAKES.map(([text]) => text[0]));
const SHORT_MISTAKES: Readonly<Record<string, readonly [string, string]>> = {
  "=": ['Unexpected "="', 'Write "==" to compare; expressions cannot assign.'],
  "&": ['Unexpected "&"', 'Write "&&" for "and".'],
  "|": ['Unexpected "|"', 'Write "||" for "or".'],
  "`": ["Unexpected backquote", "Write strings in single or double quotes."],
  "{": ['Unexpected "{"', "Object literals are not supported; build objects in the workflow file instead."],
};

/** Splits `source[start, end)` into tokens, ending with an `end` token; throws ExpressionError on bad input. */
export function tokenize(source: string, start = 0, end = source.length): Token[] {
  const tokens: Token[] = [];
  let index = start;
  let afterDot = false;
  while (index < end) {
    const char = source[index] ?? "";
    if (char === " " || char === "\t" || char === "\n" || char === "\r") {
      index += 1;
      continue;
    }
    let token: Token;
    if (char >= "0" && char <= "9") token = readNumber(source, index, end);
    else if (char === "'" || char === '"') token = readString(source, index, end);
    else if (isNameChar(char)) token = readName(source, index, end, afterDot);
    else token = readPunctuator(source, index, end);
    tokens.push(token);
    afterDot = token.type === "punctuator" && token.value === ".";
    index = token.end;
  }
  tokens.push({ type: "end", start: end, end });
  return tokens;
}

function readNumber(source: string, index: number, end: number): Token {
  NUMBER.lastIndex = index;
  const text = NUMBER.exec(source)?.[0] ?? "";
  const stop = Math.min(index + text.length, end);
  if (stop < end && isNameChar(source[stop] ?? "")) {
    throw expressionErrorAt(
      "invalid_expression",
      source,
      stop,
      `Unexpected "${source[stop]}" right after the number ${source.slice(index, stop)}`,
      "Put an operator or a space between them; names cannot start with a digit.",
    );
  }
  return { type: "number", value: Number(source.slice(index, stop)), start: index, end: stop };
}

function isNameChar(char: string): boolean {
  return (char >= "a" && char <= "z") || (char >= "A" && char <= "Z") || (char >= "0" && char <= "9") || char === "_";
}

function readName(source: string, index: number, end: number, afterDot: boolean): Token {
  const pattern = afterDot ? MEMBER_NAME : IDENTIFIER;
  pattern.lastIndex = index;
  // The sticky pattern's lastIndex is where the name ends; only the text is kept, not a match.
  const stop = pattern.test(source) ? Math.min(pattern.lastIndex, end) : index;
  return { type: "name", value: source.slice(index, stop), start: index, end: stop };
}

function readString(source: string, index: number, end: number): Token {
  const quote = source[index];
  let value = "";
  let position = index + 1;
  while (position < end) {
    const char = source[position];
    if (char === quote) return { type: "string", value, start: index, end: position + 1 };
    if (char !== "\\") {
      value += char;
      position += 1;
      continue;
    }
    const escaped = source[position + 1];
    if (escaped === "u") {
      const [text, length] = readUnicodeEscape(source, position, end);
      value += text;
      position += length;
    } else if (escaped !== undefined && position + 1 < end && escaped in ESCAPES) {
      value += ESCAPES[escaped];
      position += 2;
    } else {
      const shown = position + 1 < end && escaped !== undefined ? `\\${escaped}` : "\\";
      throw expressionErrorAt("invalid_expression", source, position, `Unknown escape "${shown}"`, ESCAPE_HELP);
    }
  }
  throw expressionErrorAt(
    "invalid_expression",
    source,
    index,
    "Unterminated string",
    `Close the string with ${quote}.`,
  );
}

function readUnicodeEscape(source: string, position: number, end: number): [string, number] {
  const braced = /\\u\{([0-9A-Fa-f]{1,6})\}/y;
  const plain = /\\u([0-9A-Fa-f]{4})/y;
  for (const pattern of [braced, plain]) {
    pattern.lastIndex = position;
    const match = pattern.exec(source);
    const codePoint = match === null ? Number.NaN : Number.parseInt(match[1] ?? "", 16);
    if (match !== null && position + match[0].length <= end && codePoint <= 0x10ffff) {
      return [String.fromCodePoint(codePoint), match[0].length];
    }
  }
  throw expressionErrorAt("invalid_expression", source, position, "Malformed unicode escape", ESCAPE_HELP);
}

function readPunctuator(source: string, index: number, end: number): Token {
  if (MISTAKE_STARTS.has(source[index] ?? "")) {
    for (const [text, problem, fix] of LONG_MISTAKES) {
      if (source.startsWith(text, index) && index + text.length <= end) {
        throw expressionErrorAt("invalid_expression", source, index, problem, fix);
      }
    }
  }
  const two = index + 2 <= end ? source.slice(index, index + 2) : "";
  if (TWO_CHAR.has(two)) return { type: "punctuator", value: two as Punctuator, start: index, end: index + 2 };
  const one = source[index] ?? "";
  if (ONE_CHAR.has(one)) return { type: "punctuator", value: one as Punctuator, start: index, end: index + 1 };
  const [problem, fix] = SHORT_MISTAKES[one] ?? [
    `Unexpected character ${JSON.stringify(one)}`,
    'Names use letters, digits and _; write other keys in brackets, e.g. inputs["my key"].',
  ];
  throw expressionErrorAt("invalid_expression", source, index, problem, fix);
}

/** Whether a token is the given punctuator. */
export function isPunctuator<T extends Punctuator>(
  token: Token,
  value: T,
): token is Token & { type: "punctuator"; value: T } {
  return token.type === "punctuator" && token.value === value;
}

/** A token as a message names it: `"+"`, `the number 3`, `the end of the expression`. */
export function describeToken(token: Token): string {
  switch (token.type) {
    case "end":
      return "the end of the expression";
    case "number":
      return `the number ${token.value}`;
    case "string":
      return "a string";
    case "name":
      return `"${token.value}"`;
    case "punctuator":
      return `"${token.value}"`;
  }
}
