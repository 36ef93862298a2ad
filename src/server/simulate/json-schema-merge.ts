type SchemaObject = { readonly [keyword: string]: unknown };

const LOWER_BOUNDS = new Set(["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"]);
const UPPER_BOUNDS = new Set(["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"]);

/**
 * Both schemas' constraints in one schema (for `allOf` and `$ref` siblings): bounds tightened,
 * `required` united, `properties` merged, `type` and `enum` intersected. A keyword the two set
 * differently and that cannot be combined is kept from both through `allOf`, so validation still
 * sees every constraint even where generation only follows the first.
 */
export function mergeSchemas(first: SchemaObject, second: SchemaObject): SchemaObject {
  const merged: Record<string, unknown> = { ...first };
  const residual: SchemaObject[] = [];
  for (const [key, value] of Object.entries(second)) {
    const existing = merged[key];
    if (existing === undefined) {
      merged[key] = value;
    } else if (typeof existing === "number" && typeof value === "number" && LOWER_BOUNDS.has(key)) {
      merged[key] = Math.max(existing, value);
    } else if (typeof existing === "number" && typeof value === "number" && UPPER_BOUNDS.has(key)) {
      merged[key] = Math.min(existing, value);
    } else if (key === "required" && Array.isArray(existing) && Array.isArray(value)) {
      merged[key] = [...new Set([...existing, ...value])];
    } else if (key === "properties" && isObject(existing) && isObject(value)) {
      const properties: Record<string, unknown> = { ...existing };
      for (const [name, sub] of Object.entries(value)) {
        properties[name] = properties[name] === undefined ? sub : { allOf: [properties[name], sub] };
      }
      merged[key] = properties;
    } else if (key === "type") {
      const left = typeof existing === "string" ? [existing] : (existing as string[]);
      const right = typeof value === "string" ? [value] : (value as string[]);
      const both = left.filter((type) => right.includes(type) || (type === "integer" && right.includes("number")));
      const widened = right.filter((type) => type === "integer" && left.includes("number"));
      merged[key] = [...new Set([...both, ...widened])];
    } else if (key === "enum" && Array.isArray(existing) && Array.isArray(value)) {
      const right = new Set(value.map((item) => JSON.stringify(item)));
      merged[key] = existing.filter((item) => right.has(JSON.stringify(item)));
    } else if (key === "allOf" && Array.isArray(existing) && Array.isArray(value)) {
      merged[key] = [...existing, ...value];
    } else if (JSON.stringify(existing) !== JSON.stringify(value)) {
      residual.push({ [key]: value });
    }
  }
  if (residual.length > 0) merged.allOf = [...(Array.isArray(merged.allOf) ? merged.allOf : []), ...residual];
  return merged;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
