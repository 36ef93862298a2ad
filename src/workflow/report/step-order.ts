import path from "node:path";
import { renderValue } from "../expression/index.js";
import type { RunSummary } from "../run/run-summary.js";
import { childSteps, isMapStep, type Step } from "../schema/step-schemas.js";

/** One part of a step key: `posters[1].final` is `posters` item 1, then `final`. */
export interface KeySegment {
  readonly id: string;
  readonly index?: number;
}

/** The parts of a step key (`items[3].blurb`, `posters[1].final`, `ideas`). */
export function parseStepKey(key: string): KeySegment[] {
  return key.split(/\.(?![^[]*\])/).map((part) => {
    const match = /^(.*)\[(\d+)\]$/.exec(part);
    return match === null ? { id: part } : { id: match[1]!, index: Number(match[2]) };
  });
}

/** Every step id of the file in reading order (containers before their children), numbered. */
export function workflowOrder(steps: readonly Step[]): Map<string, number> {
  const order = new Map<string, number>();
  const visit = (list: readonly Step[]) => {
    for (const step of list) {
      if (!order.has(step.id)) order.set(step.id, order.size);
      visit(childSteps(step));
    }
  };
  visit(steps);
  return order;
}

/**
 * Sorts values by their step keys: by the file's order, then by map item (a batch's `items[N]` first, by row).
 * Each key is parsed once, not at every comparison.
 */
export function sortByStepKey<T>(
  order: ReadonlyMap<string, number>,
  values: readonly T[],
  keyOf: (value: T) => string,
): T[] {
  return values
    .map((value) => ({ value, segments: parseStepKey(keyOf(value)) }))
    .sort((left, right) => compareSegments(order, left.segments, right.segments))
    .map(({ value }) => value);
}

function compareSegments(
  order: ReadonlyMap<string, number>,
  a: readonly KeySegment[],
  b: readonly KeySegment[],
): number {
  for (let position = 0; position < Math.max(a.length, b.length); position++) {
    const x = a[position];
    const y = b[position];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    const byId = (order.get(x.id) ?? -1) - (order.get(y.id) ?? -1);
    if (byId !== 0) return byId;
    const byIndex = (x.index ?? -1) - (y.index ?? -1);
    if (byIndex !== 0) return byIndex;
  }
  return 0;
}

/**
 * The items of each top-level map, evaluated again from the journal's outputs, so a caption can
 * name the item (`posters[1]: "Light every evening"`). A map whose list cannot be rebuilt is left out.
 */
export function mapItemsOf(summary: RunSummary): Map<string, readonly unknown[]> {
  const steps: Record<string, { output: unknown }> = {};
  for (const record of summary.journal) {
    if (record.type === "step-finished" && !record.key.includes("[") && !record.key.includes("."))
      steps[record.id] = { output: record.output };
  }
  const scope = {
    inputs: summary.inputs,
    run: { id: summary.runId, name: summary.workflow.name, dir: summary.runDir, startedAt: summary.startedAt },
    steps,
  };
  const items = new Map<string, readonly unknown[]>();
  const visit = (list: readonly Step[]) => {
    for (const step of list) {
      if (isMapStep(step)) {
        try {
          const value = renderValue(step.map, scope);
          if (Array.isArray(value)) items.set(step.id, value);
        } catch {
          // A list built from something the journal does not hold: the caption names the index only.
        }
      } else {
        visit(childSteps(step));
      }
    }
  };
  visit(summary.workflow.definition.steps);
  return items;
}

const LABEL_FIELDS = ["title", "name", "caption", "label", "headline", "sku", "id"];

/** A short label for a map item or batch row: its text, a file's name, or an object's title-like field. */
export function itemLabel(value: unknown, maxLength = 80): string | undefined {
  let text: string | undefined;
  if (typeof value === "string")
    text = /\.(png|jpe?g|webp|gif|wav|mp3)$/i.test(value) && !value.startsWith("data:") ? path.basename(value) : value;
  else if (typeof value === "number" || typeof value === "boolean") text = String(value);
  else if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const field =
      LABEL_FIELDS.find((name) => typeof record[name] === "string" || typeof record[name] === "number") ??
      Object.keys(record).find((name) => typeof record[name] === "string");
    if (field !== undefined) text = String(record[field]);
  }
  if (text === undefined) return undefined;
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > maxLength ? `${flat.slice(0, maxLength - 1)}…` : flat;
}
