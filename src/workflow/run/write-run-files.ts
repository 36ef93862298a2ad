import { open, rename } from "node:fs/promises";
import path from "node:path";
import { redactSecrets } from "../../errors.js";
import type { CostLedger } from "../../cost/cost-ledger.js";
import type { PossibleDoubleBills } from "./call-intents.js";

/**
 * Writes a JSON file whole (temp file, fsync, rename), so a reader never sees half of it. The text is
 * `JSON.stringify(value, null, 2)`'s, written a piece at a time: a top-level list (cost.json's
 * calls, a long map's outputs) never becomes one string, so writing it takes no memory in proportion.
 */
export async function writeJsonFile(file: string, value: unknown): Promise<void> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const handle = await open(temporary, "w");
  try {
    let pending: string[] = [];
    let size = 0;
    for (const piece of jsonPieces(value)) {
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

const WRITE_CHARS = 1 << 20;

// The pieces of JSON.stringify(value, null, 2): an object's keys one by one, and a list under a key element by element.
function* jsonPieces(value: unknown): Generator<string> {
  if (typeof value !== "object" || value === null || Array.isArray(value) || "toJSON" in value) {
    yield JSON.stringify(value, null, 2);
    return;
  }
  const entries = Object.entries(value).filter(([, field]) => field !== undefined && typeof field !== "function");
  if (entries.length === 0) {
    yield "{}";
    return;
  }
  yield "{\n";
  for (const [index, [key, field]] of entries.entries()) {
    yield `  ${JSON.stringify(key)}: `;
    if (Array.isArray(field) && field.length > 0) {
      yield "[\n";
      for (const [at, element] of field.entries())
        yield `    ${indented(JSON.stringify(element ?? null, null, 2), "    ")}${at < field.length - 1 ? ",\n" : "\n"}`;
      yield "  ]";
    } else {
      yield indented(JSON.stringify(field, null, 2), "  ");
    }
    yield index < entries.length - 1 ? ",\n" : "\n";
  }
  yield "}";
}

function indented(text: string, indent: string): string {
  return text.replaceAll("\n", `\n${indent}`);
}

/** cost.json: the ledger's totals (by model, by step under byTag.step, budget), the calls that may have been
 * billed twice (`possibleDoubleBills`, see CallIntents) and every entry under `calls`. */
export function costFileContent(
  ledger: CostLedger,
  possibleDoubleBills: PossibleDoubleBills = { totalYuan: 0, calls: [] },
): Record<string, unknown> {
  return { ...ledger.summary(), possibleDoubleBills, calls: ledger.entries() };
}
