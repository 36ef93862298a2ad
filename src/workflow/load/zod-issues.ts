import type { z } from "zod";
import { didYouMean } from "../../catalog/closest-name.js";
import type { ValuePath } from "../expression/index.js";

/** A problem before it is given a file position. `key` points at a mapping key instead of its value. */
export interface RawIssue {
  readonly path: ValuePath;
  readonly message: string;
  readonly key?: string;
  /** 0-based offset inside the string value, for expression errors. */
  readonly offsetInString?: number;
}

/** Turns zod's issues into messages that name the field and the fix; `base` is where `schema` sits in the file. */
export function issuesFromZod(error: z.ZodError, schema: z.ZodType, base: ValuePath): RawIssue[] {
  return error.issues.flatMap((issue): RawIssue[] => {
    const path = [...base, ...(issue.path as Array<string | number>)];
    if (issue.code === "unrecognized_keys") {
      const known = keysAt(schema, issue.path as Array<string | number>);
      return issue.keys.map((key) => ({ path, key, message: unknownField(key, known) }));
    }
    if (issue.code === "invalid_type" && issue.input === undefined && path.length > 0) {
      const name = String(path[path.length - 1]);
      return [{ path: path.slice(0, -1), message: `Missing field "${name}" (${issue.expected}).` }];
    }
    if (issue.code === "invalid_value" && typeof issue.input === "string") {
      const options = issue.values.map(String);
      return [
        {
          path,
          message: `${didYouMean(issue.input, options)}Expected one of ${options.map((option) => `"${option}"`).join(", ")}, got "${issue.input}".`,
        },
      ];
    }
    if (issue.code === "invalid_key") {
      const inner = issue.issues[0]?.message ?? issue.message;
      return [
        {
          path: path.slice(0, -1),
          key: String(path[path.length - 1]),
          message: `Invalid name "${String(issue.input)}": ${inner}.`,
        },
      ];
    }
    return [{ path, message: sentence(issue.message) }];
  });
}

/** `Unknown field "x". Did you mean "y"? Fields here: a, b.` */
export function unknownField(key: string, known: readonly string[]): string {
  const hint = didYouMean(key, known);
  return `Unknown field "${key}". ${hint}${known.length > 0 ? `Fields here: ${known.join(", ")}.` : ""}`.trim();
}

function sentence(message: string): string {
  const trimmed = message.replace(/^Invalid input: e/, "E");
  return /[.?!]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

interface Def {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly getter?: () => z.ZodType;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

// The field names an object schema allows at `path`, looking through optional, arrays, records and unions.
function keysAt(schema: z.ZodType, path: ReadonlyArray<string | number>): string[] {
  let candidates: z.ZodType[] = [schema];
  for (const segment of [...path, undefined]) {
    const next: z.ZodType[] = [];
    for (const candidate of candidates.flatMap(unwrap)) {
      const def = defOf(candidate);
      if (segment === undefined) {
        if (def.type === "object" && def.shape) return Object.keys(def.shape);
        continue;
      }
      if (def.type === "object" && def.shape?.[segment] !== undefined) next.push(def.shape[segment]);
      if (def.type === "array" && def.element) next.push(def.element);
      if (def.type === "record" && def.valueType) next.push(def.valueType);
    }
    candidates = next;
  }
  return [];
}

function unwrap(schema: z.ZodType): z.ZodType[] {
  const def = defOf(schema);
  if ((def.type === "optional" || def.type === "nullable" || def.type === "default") && def.innerType)
    return unwrap(def.innerType);
  if (def.type === "union" && def.options) return def.options.flatMap(unwrap);
  if (def.type === "lazy" && def.getter) return unwrap(def.getter());
  return [schema];
}
