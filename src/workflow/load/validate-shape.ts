import { z } from "zod";
import { didYouMean } from "../../catalog/closest-name.js";
import type { ValuePath } from "../expression/index.js";
import { isPlainObject } from "../plain-object.js";
import { LEAF_STEP_SCHEMAS, mapStepSchema, parallelStepSchema, type Step } from "../schema/step-schemas.js";
import { LEAF_KINDS } from "../schema/with-schemas.js";
import { workflowShallowSchema, type WorkflowDefinition } from "../schema/workflow-schema.js";
import { issuesFromZod, type RawIssue } from "./zod-issues.js";

/** The file checked against the schema: a definition when there were no issues. */
export interface ShapeResult {
  readonly definition?: WorkflowDefinition;
  /**
   * With issues: what passed, with an inert stand-in (its id kept) for each step that did not, so
   * the other checks still run and every problem is reported at once. Absent when a top-level
   * field the other checks read (inputs, defaults, mcp, steps) is itself wrong.
   */
  readonly partial?: WorkflowDefinition;
  readonly issues: readonly RawIssue[];
}

const MARKERS = ["uses", "map", "parallel"] as const;
// Top-level fields the later checks read: when one is wrong, they would report what follows from it.
const READ_BY_CHECKS = new Set(["inputs", "defaults", "mcp", "steps"]);

/** Checks a parsed file against the schema, one step at a time so each error names its step's own fields. */
export function validateWorkflowShape(value: unknown): ShapeResult {
  const issues: RawIssue[] = [];
  if (!isPlainObject(value)) {
    return {
      issues: [
        {
          path: [],
          message:
            "A workflow file is a mapping with version: 1 and steps:. See the examples in node_modules/svc-flow/workflows/ (workflows/ in a clone of svc-flow).",
        },
      ],
    };
  }
  const topIssues: RawIssue[] = [];
  const top = parse(workflowShallowSchema, value, [], topIssues);
  issues.push(...topIssues);
  const steps = Array.isArray(value.steps)
    ? value.steps.map((step, index) => validateStep(step, ["steps", index], issues))
    : [];
  if (top !== undefined && issues.length === 0) return { definition: { ...top, steps }, issues };
  const passed = top ?? withoutWrongFields(value, topIssues);
  return passed === undefined ? { issues } : { partial: { ...passed, steps }, issues };
}

// The top level without the fields that failed, when none of them is one the later checks read.
function withoutWrongFields(
  value: Record<string, unknown>,
  issues: readonly RawIssue[],
): z.infer<typeof workflowShallowSchema> | undefined {
  const wrong = new Set(issues.map((issue) => String(issue.path[0] ?? issue.key ?? "")));
  if (wrong.has("") || [...wrong].some((field) => READ_BY_CHECKS.has(field))) return undefined;
  const rest = Object.fromEntries(Object.entries(value).filter(([field]) => !wrong.has(field)));
  const result = workflowShallowSchema.safeParse({ ...rest, version: 1 });
  return result.success ? result.data : undefined;
}

function parse<T extends z.ZodType>(
  schema: T,
  value: unknown,
  path: ValuePath,
  issues: RawIssue[],
): z.infer<T> | undefined {
  const result = checkingSchema(schema).safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  issues.push(...issuesFromZod(result.error, schema, path));
  return undefined;
}

// zod's generated parser (z.compile) checks a step in about a third of the runtime parser's time
// (19,600 chat steps: 110 ms -> 40 ms) but takes about 6 ms to make, as long as 1,000 runtime
// checks; so a schema is compiled once it has checked that many values in this process, and a
// small file pays nothing. A value the generated parser rejects is parsed again by the runtime
// parser, so the issues are the same.
const COMPILE_AFTER = 1_000;
const schemaUses = new Map<z.ZodType, { uses: number; compiled?: z.ZodType }>();

/** The schema to check a value with: `schema` itself, or its compiled form once it has been used enough. */
export function checkingSchema<T extends z.ZodType>(schema: T): T {
  let use = schemaUses.get(schema);
  if (use === undefined) {
    use = { uses: 0 };
    schemaUses.set(schema, use);
  }
  use.uses += 1;
  if (use.compiled === undefined && use.uses > COMPILE_AFTER) use.compiled = z.compile(schema);
  return (use.compiled ?? schema) as T;
}

// Stands in for a step whose shape is wrong: an approval with nothing to check, keeping the step's id
// (and a parallel's children, which later steps may read) so checks of other steps see what exists.
function standIn(value: unknown, path: ValuePath, children?: Step[]): Step {
  const id = isPlainObject(value) && typeof value.id === "string" ? value.id : `#${path.join(".")}`;
  if (children !== undefined) return { id, parallel: children } as Step;
  return { id, uses: "approval", with: { prompt: "" } } as Step;
}

function validateStep(value: unknown, path: ValuePath, issues: RawIssue[]): Step {
  if (!isPlainObject(value)) {
    issues.push({ path, message: "Expected a step: a mapping with an id and one of uses:, map: or parallel:." });
    return standIn(value, path);
  }
  const markers = MARKERS.filter((marker) => marker in value);
  if (markers.length === 0) {
    const id = typeof value.id === "string" ? `Step "${value.id}" says` : "This step says";
    issues.push({
      path,
      message: `${id} nothing to do. Add uses: (${LEAF_KINDS.join(", ")}), or map: or parallel: with nested steps.`,
    });
    return standIn(value, path);
  }
  if (markers.length > 1) {
    issues.push({
      path,
      key: markers[1],
      message: `A step has exactly one of uses:, map:, parallel:; this one has ${markers.join(" and ")}.`,
    });
    return standIn(value, path);
  }
  if (markers[0] === "map") return validateContainer(mapStepSchema, "steps", value, path, issues);
  if (markers[0] === "parallel") return validateContainer(parallelStepSchema, "parallel", value, path, issues);
  const kind = value.uses;
  if (typeof kind !== "string" || !Object.hasOwn(LEAF_STEP_SCHEMAS, kind)) {
    const hint =
      kind === "map" || kind === "parallel"
        ? `${kind} is a container: write ${kind}: directly on the step, without uses:. `
        : "";
    const name = typeof kind === "string" ? `"${kind}"` : JSON.stringify(kind);
    issues.push({
      path: [...path, "uses"],
      message: `Unknown step kind ${name}. ${hint}${typeof kind === "string" ? didYouMean(kind, LEAF_KINDS) : ""}Step kinds: ${LEAF_KINDS.join(", ")}; containers: map:, parallel:.`,
    });
    return standIn(value, path);
  }
  return parse(LEAF_STEP_SCHEMAS[kind as keyof typeof LEAF_STEP_SCHEMAS], value, path, issues) ?? standIn(value, path);
}

function validateContainer(
  schema: typeof mapStepSchema | typeof parallelStepSchema,
  field: "steps" | "parallel",
  value: Record<string, unknown>,
  path: ValuePath,
  issues: RawIssue[],
): Step {
  const container = parse(schema, value, path, issues);
  const children = value[field];
  const steps = Array.isArray(children)
    ? children.map((child, index) => validateStep(child, [...path, field, index], issues))
    : [];
  // A map's children are not readable after it; a parallel's are.
  if (container === undefined) return standIn(value, path, field === "parallel" ? steps : undefined);
  return { ...container, [field]: steps } as Step;
}
