import { open, rename, type FileHandle } from "node:fs/promises";
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
    const out = new PieceWriter(handle);
    await writeValue(value, "", out);
    out.add("\n");
    await out.flush();
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
}

const WRITE_CHARS = 1 << 16;

/** Collects pieces and writes them a block at a time. */
class PieceWriter {
  readonly #handle: FileHandle;
  #pending: string[] = [];
  #size = 0;

  constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  /** Adds a piece; true once a block is full (the caller then awaits flush). */
  add(piece: string): boolean {
    this.#pending.push(piece);
    this.#size += piece.length;
    return this.#size >= WRITE_CHARS;
  }

  async flush(): Promise<void> {
    // Pieces end at whole values, so a secret inside one is redacted whole.
    const text = redactSecrets(this.#pending.join(""));
    this.#pending = [];
    this.#size = 0;
    await this.#handle.write(text);
  }
}

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

/** An object writeJsonFile writes from fields read one at a time (a batch's step totals read back from a file). */
export class JsonFields {
  constructor(readonly fields: AsyncIterable<readonly [string, unknown]>) {}
}

/** A part of a value that is read asynchronously (a JsonTextList, JsonFields, an async iterable list), at its indent. */
interface Deferred {
  readonly deferred: unknown;
  readonly indent: string;
}

// Writes the pieces of JSON.stringify(value, null, 2) at `indent`; the parts read asynchronously as they come.
async function writeValue(value: unknown, indent: string, out: PieceWriter): Promise<void> {
  for (const piece of jsonPieces(value, indent)) {
    if (typeof piece !== "string") await writeDeferred(piece, out);
    else if (out.add(piece)) await out.flush();
  }
}

async function writeDeferred({ deferred, indent }: Deferred, out: PieceWriter): Promise<void> {
  const inner = `${indent}  `;
  if (deferred instanceof JsonTextList) {
    if (deferred.indent !== inner)
      throw new Error(`A JSON text list written at indent ${deferred.indent.length} was placed at ${inner.length}.`);
    if (deferred.count === 0) {
      out.add("[]");
      return;
    }
    out.add("[\n");
    for await (const text of deferred.text()) if (out.add(text)) await out.flush();
    out.add(`\n${indent}]`);
    return;
  }
  let first = true;
  if (deferred instanceof JsonFields) {
    for await (const [key, field] of deferred.fields) {
      out.add(`${first ? "{\n" : ",\n"}${inner}${JSON.stringify(key)}: `);
      await writeValue(field, inner, out);
      first = false;
    }
    out.add(first ? "{}" : `\n${indent}}`);
    return;
  }
  for await (const element of deferred as AsyncIterable<unknown>) {
    if (out.add(`${first ? "[\n" : ",\n"}${inner}${indented(JSON.stringify(element ?? null, null, 2), inner)}`))
      await out.flush();
    first = false;
  }
  out.add(first ? "[]" : `\n${indent}]`);
}

// The pieces of JSON.stringify(value, null, 2), at `indent`: an object that holds objects key by key (so cost.json's
// byTag.step, one key per batch row, never becomes one string), a list element by element, anything else whole.
// What is read asynchronously is handed back as a Deferred, for writeDeferred.
function* jsonPieces(value: unknown, indent: string): Generator<string | Deferred> {
  if (value instanceof JsonTextList || value instanceof JsonFields || isAsyncIterable(value)) {
    yield { deferred: value, indent };
    return;
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    // A list's elements are written whole, each its own piece.
    for (let index = 0; index < value.length; index++)
      yield `${index === 0 ? "[\n" : ",\n"}${inner}${indented(JSON.stringify(value[index] ?? null, null, 2), inner)}`;
    yield value.length === 0 ? "[]" : `\n${indent}]`;
    return;
  }
  if (!isPlainRecord(value) || !Object.values(value).some((field) => typeof field === "object" && field !== null)) {
    yield indented(JSON.stringify(value, null, 2), indent);
    return;
  }
  // An object's fields, each written as jsonPieces writes its value.
  let first = true;
  for (const key of Object.keys(value)) {
    const field = value[key];
    if (field === undefined || typeof field === "function") continue;
    yield `${first ? "{\n" : ",\n"}${inner}${JSON.stringify(key)}: `;
    yield* jsonPieces(field, inner);
    first = false;
  }
  yield first ? "{}" : `\n${indent}}`;
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
