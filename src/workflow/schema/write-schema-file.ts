import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { META_VALIDATOR_FILE_PATH, metaValidatorFileText } from "../load/meta-validator-code.js";
import { workflowSchemaFileText } from "./workflow-json-schema.js";

/** Where the generated JSON Schema lives, next to the engine. */
export const SCHEMA_FILE_PATH = fileURLToPath(new URL("../workflow.schema.json", import.meta.url));

/** Writes workflow.schema.json from the zod schema (`npm run schema`). */
export async function writeSchemaFile(path = SCHEMA_FILE_PATH): Promise<void> {
  await writeFile(path, workflowSchemaFileText());
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeSchemaFile();
  await writeFile(META_VALIDATOR_FILE_PATH, metaValidatorFileText());
  process.stdout.write(`Wrote ${SCHEMA_FILE_PATH} and ${META_VALIDATOR_FILE_PATH}\n`);
}
