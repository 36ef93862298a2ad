import { open, rename } from "node:fs/promises";
import path from "node:path";
import { redactSecrets } from "../../errors.js";
import type { CostLedger } from "../../cost/cost-ledger.js";
import type { PossibleDoubleBills } from "./call-intents.js";

/** Writes a JSON file whole (temp file, fsync, rename), so a reader never sees half of it. */
export async function writeJsonFile(file: string, value: unknown): Promise<void> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const handle = await open(temporary, "w");
  try {
    await handle.writeFile(`${redactSecrets(JSON.stringify(value, null, 2))}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
}

/** cost.json: the ledger's totals (by model, by step under byTag.step, budget), the calls that may have been
 * billed twice (`possibleDoubleBills`, see CallIntents) and every entry under `calls`. */
export function costFileContent(
  ledger: CostLedger,
  possibleDoubleBills: PossibleDoubleBills = { totalYuan: 0, calls: [] },
): Record<string, unknown> {
  return { ...ledger.summary(), possibleDoubleBills, calls: ledger.entries() };
}
