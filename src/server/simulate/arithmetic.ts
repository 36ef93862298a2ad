/** An arithmetic expression found in a prompt, and its value. */
export interface Arithmetic {
  /** Normalised with symbols, e.g. `12 * 7` for "12 times 7". */
  readonly expression: string;
  readonly value: number;
}

const NUMBER = String.raw`-?\d+(?:\.\d+)?`;

// Word forms first, so that "12 times 7" and "sum of 3 and 4" reach the symbol parser.
const WORD_FORMS: ReadonlyArray<[RegExp, string]> = [
  [new RegExp(String.raw`\b(?:the )?(?:sum of|add)\s+(${NUMBER})\s+(?:and|to|plus)\s+(${NUMBER})`, "gi"), "$1 + $2"],
  [new RegExp(String.raw`\b(?:the )?product of\s+(${NUMBER})\s+and\s+(${NUMBER})`, "gi"), "$1 * $2"],
  [new RegExp(String.raw`\bsubtract\s+(${NUMBER})\s+from\s+(${NUMBER})`, "gi"), "$2 - $1"],
  [new RegExp(String.raw`\bdivide\s+(${NUMBER})\s+by\s+(${NUMBER})`, "gi"), "$1 / $2"],
  [new RegExp(String.raw`\bmultiply\s+(${NUMBER})\s+(?:by|and|with)\s+(${NUMBER})`, "gi"), "$1 * $2"],
  [new RegExp(String.raw`(${NUMBER})\s*(?:%|percent)\s+of\s+(${NUMBER})`, "gi"), "$1 / 100 * $2"],
  [/(\d)\s*(?:x|×|times|multiplied by)\s*(?=-?\d)/gi, "$1 * "],
  [/\s+(?:plus|added to)\s+/gi, " + "],
  [/\s+(?:minus|less)\s+/gi, " - "],
  [/\s+(?:divided by|over)\s+/gi, " / "],
  [/\s*(?:÷)\s*/g, " / "],
  [/\s+(?:to the power of|raised to)\s+/gi, " ^ "],
  [/\*\*/g, "^"],
  [/(\d)\s+squared\b/gi, "$1 ^ 2"],
  [/(\d)\s+cubed\b/gi, "$1 ^ 3"],
];

const CANDIDATE = /[-(]*\d[\d.\s+\-*/^()]*[\d)]/g;

/** Every arithmetic expression in a text (two or more numbers joined by operators), in order. */
export function findArithmetic(text: string): Arithmetic[] {
  let normalised = text.replace(/(\d),(\d{3})\b/g, "$1$2");
  for (const [pattern, replacement] of WORD_FORMS) normalised = normalised.replace(pattern, replacement);
  const found: Arithmetic[] = [];
  for (const match of normalised.matchAll(CANDIDATE)) {
    const expression = balance(match[0].trim());
    if (!/\d\s*[-+*/^]\s*[-(]*\d/.test(expression)) continue;
    // A date (2024-05-01) or a range (3-4) is not a subtraction someone asked for.
    if (/^\d{4}-\d{2}-\d{2}$/.test(expression) || /^\d+-\d+$/.test(expression)) continue;
    const value = evaluate(expression);
    if (value !== undefined && Number.isFinite(value)) found.push({ expression: tidy(expression), value });
  }
  return found;
}

/** Formats a computed number the way a person would write it: no float noise, at most 6 decimals. */
export function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return String(Number.parseFloat(value.toFixed(6)));
}

function balance(expression: string): string {
  let text = expression;
  while (text.startsWith("(") && count(text, "(") > count(text, ")")) text = text.slice(1).trim();
  while (text.endsWith(")") && count(text, ")") > count(text, "(")) text = text.slice(0, -1).trim();
  return text;
}

function count(text: string, character: string): number {
  return text.split(character).length - 1;
}

function tidy(expression: string): string {
  return expression
    .replace(/\s*([+*/^])\s*/g, " $1 ")
    .replace(/(\d|\))\s*-\s*/g, "$1 - ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Evaluates + - * / ^ and parentheses with the usual precedence; undefined when malformed. */
export function evaluate(expression: string): number | undefined {
  const tokens = expression.match(/\d+(?:\.\d+)?|[-+*/^()]/g) ?? [];
  let position = 0;
  const peek = () => tokens[position];
  const take = () => tokens[position++];
  const primary = (): number | undefined => {
    const token = take();
    if (token === "-") {
      const value = power();
      return value === undefined ? undefined : -value;
    }
    if (token === "(") {
      const value = sum();
      return take() === ")" ? value : undefined;
    }
    return token !== undefined && /^\d/.test(token) ? Number(token) : undefined;
  };
  const power = (): number | undefined => {
    const base = primary();
    if (base === undefined || peek() !== "^") return base;
    take();
    const exponent = power();
    return exponent === undefined ? undefined : base ** exponent;
  };
  const product = (): number | undefined => {
    let value = power();
    while (value !== undefined && (peek() === "*" || peek() === "/")) {
      const operator = take();
      const right = power();
      value = right === undefined ? undefined : operator === "*" ? value * right : value / right;
    }
    return value;
  };
  const sum = (): number | undefined => {
    let value = product();
    while (value !== undefined && (peek() === "+" || peek() === "-")) {
      const operator = take();
      const right = product();
      value = right === undefined ? undefined : operator === "+" ? value + right : value - right;
    }
    return value;
  };
  const value = sum();
  return position === tokens.length ? value : undefined;
}
