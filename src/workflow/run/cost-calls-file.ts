import path from "node:path";
import type { CostEntry } from "../../cost/cost-entry.js";
import { BlockFile } from "./block-file.js";
import { JsonTextList } from "./write-run-files.js";

/** The run-directory file that holds an attempt's cost entries until cost.json is written from it. */
export const COST_CALLS_FILE = ".cost-calls.jsonl";

/** Where cost.json's `calls` elements sit: the list is a top-level field. */
const CALL_INDENT = "    ";

/**
 * Every cost entry of a run attempt in the ledger's order (a resumed run's restored entries first),
 * so that cost.json's `calls` are streamed from disk and the ledger keeps none of them: a 100,000-row
 * batch holds no entry per row. Each entry is written as the text cost.json shows it (indented,
 * redacted), once: the end of the run copies that text, rather than reading each entry back and
 * serializing it again (the file redacts it as it writes). Each attempt rewrites it; it is removed once cost.json has its calls.
 */
export class CostCallsFile {
  readonly #file: BlockFile;
  #count = 0;

  constructor(runDir: string) {
    this.#file = new BlockFile(path.join(runDir, COST_CALLS_FILE));
  }

  /** Adds an entry (the ledger's onEntry). */
  append(entry: CostEntry): void {
    const text = JSON.stringify(entry, null, 2).replaceAll("\n", `\n${CALL_INDENT}`);
    this.#file.write(`${this.#count === 0 ? "" : ",\n"}${CALL_INDENT}${text}`);
    this.#count++;
  }

  /** cost.json's `calls`, oldest first: read from the file once writing it is finished. */
  calls(): JsonTextList {
    return new JsonTextList(CALL_INDENT, this.#count, () => this.#file.chunks());
  }

  /** Closes and deletes the file. */
  remove(): Promise<void> {
    return this.#file.remove();
  }
}
