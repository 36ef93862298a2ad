import type { z } from "zod";
import { didYouMean } from "./suggest-name.js";
import type { ValuePath } from "../expression/index.js";
import { isPlainObject } from "../plain-object.js";
import { LEAF_STEP_SCHEMAS, mapStepSchema, parallelStepSchema, type Step } from "../schema/step-schemas.js";
import { LEAF_KINDS } from "../schema/with-schemas.js";
import { workflowShallowSchema, type WorkflowDefinition } from "../schema/workflow-schema.js";
import { issuesFromZod, type RawIssue } from "./zod-issues.js";

/** The file checked against the schema: a definition when there were no issues. */
export interface ShapeResult {
  readonly definition?: WorkflowDefinition;
  readonly issues: readonly RawIssue[];
}

const MARKERS = ["uses", "map", "parallel"] as const;

/** Checks a parsed file against the schema, one step at a time so each error names its step's own fields. */
export function validateWorkflowShape(value: unknown): ShapeResult {
  const issues: RawIssue[] = [];
  if (!isPlainObject(value)) {
    return {
      issues: [
        { path: [], message: "A workflow file is a mapping with version: 1 and steps:. See workflows/ for examples." },
      ],
    };
  }
  const top = parse(workflowShallowSchema, value, [], issues);
  const steps = Array.isArray(value.steps)
    ? value.steps.map((step, index) => validateStep(step, ["steps", index], issues))
    : [];
  if (top === undefined || issues.length > 0) return { issues };
  return { definition: { ...top, steps: steps as Step[] }, issues };
}

function parse<T extends z.ZodType>(
  schema: T,
  value: unknown,
  path: ValuePath,
  issues: RawIssue[],
): z.infer<T> | undefined {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  issues.push(...issuesFromZod(result.error, schema, path));
  return undefined;
}

function validateStep(value: unknown, path: ValuePath, issues: RawIssue[]): Step | undefined {
  if (!isPlainObject(value)) {
    issues.push({ path, message: "Expected a step: a mapping with an id and one of uses:, map: or parallel:." });
    return undefined;
  }
  const markers = MARKERS.filter((marker) => marker in value);
  if (markers.length === 0) {
    const id = typeof value.id === "string" ? `Step "${value.id}" says` : "This step says";
    issues.push({
      path,
      message: `${id} nothing to do. Add uses: (${LEAF_KINDS.join(", ")}), or map: or parallel: with nested steps.`,
    });
    return undefined;
  }
  if (markers.length > 1) {
    issues.push({
      path,
      key: markers[1],
      message: `A step has exactly one of uses:, map:, parallel:; this one has ${markers.join(" and ")}.`,
    });
    return undefined;
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
    return undefined;
  }
  return parse(LEAF_STEP_SCHEMAS[kind as keyof typeof LEAF_STEP_SCHEMAS], value, path, issues);
}

function validateContainer(
  schema: typeof mapStepSchema | typeof parallelStepSchema,
  field: "steps" | "parallel",
  value: Record<string, unknown>,
  path: ValuePath,
  issues: RawIssue[],
): Step | undefined {
  const container = parse(schema, value, path, issues);
  const children = value[field];
  const steps = Array.isArray(children)
    ? children.map((child, index) => validateStep(child, [...path, field, index], issues))
    : [];
  if (container === undefined || steps.some((step) => step === undefined)) return undefined;
  return { ...container, [field]: steps } as Step;
}
