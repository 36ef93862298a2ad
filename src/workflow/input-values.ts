import { ConfigError } from "../errors.js";
import { didYouMean } from "../catalog/closest-name.js";
import { isPlainObject } from "./plain-object.js";
import type { InputSpec } from "./schema/workflow-schema.js";

/** Why a value does not fit an input's declaration; undefined when it fits. */
export function inputProblem(spec: InputSpec, value: unknown): string | undefined {
  const type = spec.type ?? "string";
  const fits =
    type === "string" || type === "items"
      ? typeof value === "string"
      : type === "number"
        ? typeof value === "number" && Number.isFinite(value)
        : type === "integer"
          ? Number.isInteger(value)
          : type === "boolean"
            ? typeof value === "boolean"
            : type === "array"
              ? Array.isArray(value)
              : isPlainObject(value);
  if (!fits) return `expected ${type === "integer" ? "an" : "a"} ${type}, got ${JSON.stringify(value)}`;
  if (spec.enum !== undefined && !spec.enum.some((option) => option === value)) {
    return `expected one of ${spec.enum.map((option) => JSON.stringify(option)).join(", ")}, got ${JSON.stringify(value)}`;
  }
  return undefined;
}

/**
 * The run's input values: given values (strings from `--input k=v` are converted to the declared type),
 * then defaults. Unknown names, missing required inputs and ill-typed values are one ConfigError.
 */
export function resolveInputs(
  specs: Readonly<Record<string, InputSpec>> = {},
  given: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const problems: string[] = [];
  const names = Object.keys(specs);
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(specs, name)) {
      problems.push(
        `Unknown input "${name}". ${didYouMean(name, names)}${names.length > 0 ? `Inputs: ${names.join(", ")}.` : "The workflow declares no inputs."}`,
      );
    }
  }
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const raw = Object.hasOwn(given, name) ? given[name] : spec.default;
    if (raw === undefined) {
      if (spec.optional !== true) problems.push(`Input "${name}" is required. Pass it with --input ${name}=VALUE.`);
      continue;
    }
    const value = Object.hasOwn(given, name) ? convert(spec, raw) : raw;
    const problem = inputProblem(spec, value);
    if (problem !== undefined) problems.push(`Input "${name}": ${problem}.`);
    else values[name] = value;
  }
  if (problems.length > 0) throw new ConfigError(problems.join("\n"));
  return values;
}

// Command-line values arrive as text; read them as the declared type when they parse as one.
function convert(spec: InputSpec, raw: unknown): unknown {
  if (typeof raw !== "string") return raw;
  const type = spec.type ?? "string";
  if (type === "number" || type === "integer")
    return raw.trim() === "" ? raw : Number.isNaN(Number(raw)) ? raw : Number(raw);
  if (type === "boolean") return raw === "true" ? true : raw === "false" ? false : raw;
  if (type === "array" || type === "object") {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  }
  return raw;
}
