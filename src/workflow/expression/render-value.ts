import { ExpressionError, type ValuePath } from "./expression-error.js";
import { evaluateExpression, type ExpressionScope } from "./evaluate-expression.js";
import { hasExpression, parseTemplate } from "./parse-template.js";
import type { Template } from "./parse-template.js";
import { isPlainObject, stringifyValue } from "./value-semantics.js";

const CACHE_LIMIT = 1000;
// Map items render the same strings over and over; parsing once per distinct string is enough. Only
// rendering caches: checking a file parses each string once, and would only churn the cache.
const cache = new Map<string, Template>();

/**
 * Renders every `${{ }}` in a JSON-like value (objects, arrays, strings; keys are left alone).
 * A string that is exactly one expression becomes the expression's value with its type (array,
 * number, object, even undefined); otherwise each value is spliced in as text (arrays and objects
 * as JSON, null and undefined as ""). Errors say where they were found, starting from `location`.
 */
export function renderValue(value: unknown, scope: ExpressionScope, location: ValuePath = []): unknown {
  if (typeof value === "string") return hasExpression(value) ? renderString(value, scope, location) : value;
  if (Array.isArray(value)) return value.map((item, index) => renderValue(item, scope, [...location, index]));
  if (!isPlainObject(value)) return value;
  // fromEntries defines properties, so a "__proto__" key stays a plain key.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, renderValue(item, scope, [...location, key])]),
  );
}

function renderString(text: string, scope: ExpressionScope, location: ValuePath): unknown {
  try {
    const template = cachedTemplate(text);
    if (template.single !== undefined) return evaluateExpression(template.single, scope);
    let result = "";
    for (const part of template.parts) {
      result += part.kind === "text" ? part.text : stringifyValue(evaluateExpression(part.expression, scope));
    }
    return result;
  } catch (error) {
    throw error instanceof ExpressionError ? error.at(location) : error;
  }
}

function cachedTemplate(text: string): Template {
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const template = parseTemplate(text);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value ?? "");
  cache.set(text, template);
  return template;
}
