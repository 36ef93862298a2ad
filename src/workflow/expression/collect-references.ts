import { childrenOf, type ExpressionNode, type ParsedExpression } from "./ast.js";
import { ExpressionError, type ValuePath } from "./expression-error.js";
import { hasExpression, parseTemplate } from "./parse-template.js";
import { isPlainObject } from "./value-semantics.js";

/** One name an expression reads, e.g. `steps.look.output.text` as root `steps`, path `["look", "output", "text"]`. */
export interface Reference {
  readonly root: string;
  /** The literal path after the root, up to the first key computed at run time. */
  readonly path: ReadonlyArray<string | number>;
  /** Whether a computed key (`steps[inputs.which]`) cut the path short. */
  readonly dynamic: boolean;
  /** The reference as written, e.g. `steps.look.output.text`. */
  readonly text: string;
  /** The string the reference was found in, and its 0-based offset there. */
  readonly source: string;
  readonly offset: number;
  /** Where in the JSON-like value the string is. */
  readonly location: ValuePath;
}

/** Every reference in every `${{ }}` of a JSON-like value; throws ExpressionError (with location) on bad syntax. */
export function collectReferences(value: unknown, location: ValuePath = []): Reference[] {
  const references: Reference[] = [];
  walk(value, location, references);
  return references;
}

/** The references of one parsed expression, each tagged with `location`. */
export function referencesOf(expression: ParsedExpression, location: ValuePath = []): Reference[] {
  const references: Reference[] = [];
  visit(expression.root, expression.source, location, references);
  return references;
}

/** The distinct step ids that references name literally (`steps.<id>`), in first-seen order: a step's dependencies. */
export function referencedStepIds(references: Iterable<Reference>): string[] {
  const ids = new Set<string>();
  for (const reference of references) {
    const id = referencedStepId(reference);
    if (id !== undefined) ids.add(id);
  }
  return [...ids];
}

/** The step id a reference names literally (`steps.<id>`), if it names one. */
export function referencedStepId(reference: Reference): string | undefined {
  const id = reference.path[0];
  return reference.root === "steps" && typeof id === "string" ? id : undefined;
}

function walk(value: unknown, location: ValuePath, references: Reference[]): void {
  if (typeof value === "string") {
    if (!hasExpression(value)) return;
    let template;
    try {
      template = parseTemplate(value);
    } catch (error) {
      throw error instanceof ExpressionError ? error.at(location) : error;
    }
    for (const part of template.parts) {
      if (part.kind === "expression") references.push(...referencesOf(part.expression, location));
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, [...location, index], references));
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) walk(item, [...location, key], references);
  }
}

// A chain of members is one reference; computed keys inside it are expressions of their own.
function visit(node: ExpressionNode, source: string, location: ValuePath, references: Reference[]): void {
  if (node.kind !== "member" && node.kind !== "identifier") {
    for (const child of childrenOf(node)) visit(child, source, location, references);
    return;
  }
  const chain: Array<ExpressionNode & { kind: "member" }> = [];
  let base: ExpressionNode = node;
  while (base.kind === "member") {
    chain.unshift(base);
    base = base.object;
  }
  if (base.kind !== "identifier") visit(base, source, location, references);
  const path: Array<string | number> = [];
  let dynamic = false;
  let end = base.end;
  for (const member of chain) {
    const key = member.property;
    const literal = key.kind === "literal" && (typeof key.value === "string" || typeof key.value === "number");
    if (!literal) visit(key, source, location, references);
    if (dynamic) continue;
    if (literal) {
      path.push(key.value as string | number);
      end = member.end;
    } else {
      dynamic = true;
    }
  }
  if (base.kind === "identifier") {
    const text = source.slice(base.start, end);
    references.push({ root: base.name, path, dynamic, text, source, offset: base.start, location });
  }
}
