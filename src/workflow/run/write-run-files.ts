import { open, rename } from "node:fs/promises";
import path from "node:path";
import { redactSecrets } from "../../errors.js";
import type { CostEntry } from "../../cost/cost-entry.js";
import type { CostSummary } from "../../cost/summarize-entries.js";
import type { PossibleDoubleBills } from "./call-intents.js";

/**
 * Writes a JSON file whole (temp file, fsync, rename), so a reader never sees half of it. The text is
 * `JSON.stringify(value, null, 2)`'s, written a piece at a time: a list (cost.json's calls, a long map's
 * outputs) or an object of objects (byTag.step) never becomes one string, so writing it takes no memory in
 * proportion. A list may be an async iterable (entries read back from a file), an object a JsonFields.
 */
export async function writeJsonFile(file: string, value: unknown): Promise<void> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const handle = await open(temporary, "w");
  try {
    let pending: string[] = [];
    let size = 0;
    for await (const piece of jsonPieces(value)) {
      pending.push(piece);
      size += piece.length;
      if (size < WRITE_CHARS) continue;
      // Pieces end at whole values, so a secret inside one is redacted whole.
      await handle.write(redactSecrets(pending.join("")));
      pending = [];
      size = 0;
    }
    await handle.write(`${redactSecrets(pending.join(""))}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
}

const WRITE_CHARS = 1 << 16;

/**
 * A list whose elements are JSON text already (CostCallsFile): each element `JSON.stringify(element, null, 2)`'s
 * text with its lines at `indent`, redacted, the elements joined by ",\n". Its text is copied as it comes, in
 * pieces of any size, so it is never parsed and serialized again.
 */
export class JsonTextList {
  constructor(
    /** The indentation the elements were written at: the list's own place in the file plus two spaces. */
    readonly indent: string,
    readonly count: number,
    readonly text: () => AsyncIterable<string>,
  ) {}
}

// The pieces of JSON.stringify(value, null, 2), at `indent`: an object that holds objects key by key (so cost.json's
// byTag.step, one key per batch row, never becomes one string), a list (an array or an async iterable, such as
// entries read back from a file) element by element, anything else whole.
async function* jsonPieces(value: unknown, indent = ""): AsyncGenerator<string> {
  if (value instanceof JsonTextList) {
    yield* textListPieces(value, indent);
    return;
  }
  if (value instanceof JsonFields) {
    yield* objectPieces(value.fields, indent);
    return;
  }
  if (Array.isArray(value) || isAsyncIterable(value)) {
    yield* listPieces(value, indent);
    return;
  }
  if (!isPlainRecord(value) || !Object.values(value).some((field) => typeof field === "object" && field !== null)) {
    yield indented(JSON.stringify(value, null, 2), indent);
    return;
  }
  yield* objectPieces(
    Object.entries(value).filter(([, field]) => field !== undefined && typeof field !== "function"),
    indent,
  );
}

// An object's fields, each written as jsonPieces writes its value.
async function* objectPieces(
  fields: Iterable<readonly [string, unknown]> | AsyncIterable<readonly [string, unknown]>,
  indent: string,
): AsyncGenerator<string> {
  const inner = `${indent}  `;
  let first = true;
  for await (const [key, field] of fields) {
    yield `${first ? "{\n" : ",\n"}${inner}${JSON.stringify(key)}: `;
    yield* jsonPieces(field, inner);
    first = false;
  }
  yield first ? "{}" : `\n${indent}}`;
}

/** An object writeJsonFile writes from fields read one at a time (a batch's step totals read back from a file). */
export class JsonFields {
  constructor(readonly fields: AsyncIterable<readonly [string, unknown]>) {}
}

// A list's elements are written whole, each its own piece.
async function* listPieces(list: Iterable<unknown> | AsyncIterable<unknown>, indent: string): AsyncGenerator<string> {
  const inner = `${indent}  `;
  let first = true;
  for await (const element of list) {
    yield `${first ? "[\n" : ",\n"}${inner}${indented(JSON.stringify(element ?? null, null, 2), inner)}`;
    first = false;
  }
  yield first ? "[]" : `\n${indent}]`;
}

async function* textListPieces(list: JsonTextList, indent: string): AsyncGenerator<string> {
  if (list.indent !== `${indent}  `)
    throw new Error(`A JSON text list written at indent ${list.indent.length} was placed at ${indent.length + 2}.`);
  if (list.count === 0) {
    yield "[]";
    return;
  }
  yield "[\n";
  yield* list.text();
  yield `\n${indent}]`;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !("toJSON" in value);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

function indented(text: string, indent: string): string {
  return text.replaceAll("\n", `\n${indent}`);
}

/** cost.json: the ledger's totals (by model, by step under byTag.step, budget), the calls that may have been
 * billed twice (`possibleDoubleBills`, see CallIntents) and every entry under `calls` (a run copies them from its
 * CostCallsFile). `byStep`, when given, is byTag.step in full (a run's ReleasedSteps with the ledger's). */
export function costFileContent(
  summary: CostSummary,
  possibleDoubleBills: PossibleDoubleBills,
  calls: readonly CostEntry[] | JsonTextList,
  byStep?: JsonFields,
): Record<string, unknown> {
  const byTag = byStep === undefined ? summary.byTag : { ...summary.byTag, step: byStep };
  return { ...summary, byTag, possibleDoubleBills, calls };
}
