import { didYouMean } from "../../catalog/closest-name.js";
import type { Reference } from "./collect-references.js";
import { expressionErrorAt, type ExpressionError } from "./expression-error.js";

/** What a reference may name at one place in a workflow; lists left out are not checked. */
export interface ReferenceContext {
  /** Root names readable here, e.g. `["inputs", "steps", "run", "tagline"]`. */
  readonly roots: readonly string[];
  /** Declared input names; `inputs.<name>` must be one of them. */
  readonly inputs?: readonly string[];
  /** Step ids that finish before this point (earlier steps); `steps.<id>` must be one of them. */
  readonly steps?: StepIds;
  /** Every step id in the file, to tell a step that comes later from one that does not exist. */
  readonly allSteps?: StepIds;
  /** The id of the step the reference sits in, to catch a step reading its own output. */
  readonly currentStep?: string;
  /** What may follow `steps.<id>`; default `["output"]`. */
  readonly stepFields?: readonly string[];
  /** Fields of `run`; `run.<field>` must be one of them. */
  readonly runFields?: readonly string[];
}

/** A set of step ids (a Set, or a view that shares storage), asked one id at a time: a file may have thousands. */
export interface StepIds extends Iterable<string> {
  has(id: string): boolean;
}

const DEFAULT_STEP_FIELDS = ["output"];

/** Checks references against what exists at their place; returns one `invalid_reference` error per problem. */
export function checkReferences(references: Iterable<Reference>, context: ReferenceContext): ExpressionError[] {
  const errors: ExpressionError[] = [];
  for (const reference of references) {
    const problem = findProblem(reference, context);
    if (problem === undefined) continue;
    const [message, fix] = problem;
    const quoted = message.includes(reference.text) ? message : `${message} (${reference.text})`;
    errors.push(
      expressionErrorAt("invalid_reference", reference.source, reference.offset, quoted, fix).at(reference.location),
    );
  }
  return errors;
}

type Problem = readonly [message: string, fix: string];

function findProblem(reference: Reference, context: ReferenceContext): Problem | undefined {
  const { root, path } = reference;
  if (!context.roots.includes(root)) {
    return [
      `Unknown name "${root}"`,
      `${didYouMean(root, context.roots)}Expressions here can read: ${context.roots.join(", ")}.`,
    ];
  }
  const first = path[0];
  if (root === "steps") return stepProblem(reference, context);
  if (
    root === "inputs" &&
    context.inputs !== undefined &&
    typeof first === "string" &&
    !context.inputs.includes(first)
  ) {
    const declared = context.inputs.length === 0 ? "none are declared" : `declared: ${context.inputs.join(", ")}`;
    return [
      `There is no input "${first}"`,
      `${didYouMean(first, context.inputs)}Declare it under inputs: (${declared}).`,
    ];
  }
  if (
    root === "run" &&
    context.runFields !== undefined &&
    typeof first === "string" &&
    !context.runFields.includes(first)
  ) {
    return [
      `run has no field "${first}"`,
      `${didYouMean(first, context.runFields)}run has: ${context.runFields.join(", ")}.`,
    ];
  }
  return undefined;
}

function stepProblem(reference: Reference, context: ReferenceContext): Problem | undefined {
  const [id, field] = reference.path;
  const fields = context.stepFields ?? DEFAULT_STEP_FIELDS;
  if (typeof id !== "string") {
    return [
      "A step must be named literally",
      "Write steps.<id>.output with the step id spelled out, so the step order can be worked out.",
    ];
  }
  if (context.steps !== undefined && !context.steps.has(id)) {
    if (id === context.currentStep) {
      return [`Step "${id}" cannot read its own output`, "Refer to a step that runs before it."];
    }
    if (context.allSteps?.has(id) === true) {
      return [
        `Step "${id}" has not run yet at this point`,
        `Move this step after "${id}", or refer to a step that runs earlier.`,
      ];
    }
    const before = [...context.steps];
    const known = before.length === 0 ? "no step runs before this one" : `steps before this one: ${before.join(", ")}`;
    return [`There is no step "${id}"`, `${didYouMean(id, context.allSteps ?? before)}Check the id (${known}).`];
  }
  if (field === undefined && !reference.dynamic) {
    return [`steps.${id} names a step, not a value`, `Write steps.${id}.${fields[0] ?? "output"}.`];
  }
  if (field !== undefined && (typeof field !== "string" || !fields.includes(field))) {
    return [
      `Steps have no field "${field}"`,
      `${didYouMean(String(field), fields)}Write steps.${id}.${fields.join(` or steps.${id}.`)}.`,
    ];
  }
  return undefined;
}
