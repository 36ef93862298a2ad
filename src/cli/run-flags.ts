import { resolve } from "node:path";
import { loadPriceFile } from "../cost/load-price-file.js";
import type { PriceOverrides } from "../catalog/prices.js";
import { UsageError, type FlagSpecs } from "./command.js";
import { numberFlag } from "./parse-args.js";
import { checkFolderFlag } from "./path-flags.js";

/** Flags `run` and `resume` share, as parseArgs options. */
export const RUN_FLAGS = {
  budget: { type: "string", value: "YUAN", help: "Stop (resumably) before spending more; default: the file's budget:" },
  prices: {
    type: "string",
    value: "FILE",
    help: "Prices (YAML or JSON, in yuan) for models without a published price",
  },
  concurrency: {
    type: "string",
    value: "N",
    help: "Steps that call something, in flight at once; default: the file's, else 8",
  },
  workspace: { type: "string", value: "DIR", help: "Folder the file tools work in; default: RUN_DIR/workspace" },
  "allow-unpriced": {
    type: "boolean",
    help: "Let a budgeted run call models without a price (their tokens are counted)",
  },
} as const satisfies FlagSpecs;

/** The shared flags' values, checked. */
export async function readRunFlags(
  values: { budget?: string; prices?: string; concurrency?: string; workspace?: string; "allow-unpriced"?: boolean },
  cwd: string,
  signal: AbortSignal,
): Promise<{
  budgetYuan?: number;
  prices?: PriceOverrides;
  concurrency?: number;
  workspace?: string;
  allowUnpriced?: boolean;
}> {
  const budgetYuan = numberFlag("budget", values.budget, { min: 0 });
  if (budgetYuan === 0) throw new UsageError("Expected --budget to be above 0 yuan.");
  if (values.workspace !== undefined) await checkFolderFlag("--workspace", resolve(cwd, values.workspace));
  const concurrency = numberFlag("concurrency", values.concurrency, { min: 1 });
  if (concurrency !== undefined && !Number.isInteger(concurrency))
    throw new UsageError(`Expected --concurrency to be a whole number, got "${values.concurrency}".`);
  return {
    ...(budgetYuan === undefined ? {} : { budgetYuan }),
    ...(values.prices === undefined ? {} : { prices: await loadPriceFile(resolve(cwd, values.prices), { signal }) }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(values.workspace === undefined ? {} : { workspace: resolve(cwd, values.workspace) }),
    ...(values["allow-unpriced"] === true ? { allowUnpriced: true } : {}),
  };
}

/** `--input k=v` pairs as an object; a pair without "=", or a name given twice, is a usage error. */
export function readInputs(pairs: readonly string[] | undefined): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const equals = pair.indexOf("=");
    if (equals <= 0) throw new UsageError(`Expected --input NAME=VALUE, got "${pair}".`);
    const name = pair.slice(0, equals);
    const value = pair.slice(equals + 1);
    // A second value would silently replace the first; a user who repeats a name usually means a list.
    if (Object.hasOwn(inputs, name))
      throw new UsageError(
        `--input ${name} is given twice ("${inputs[name]}", then "${value}"). Give it once; a list goes as JSON: --input '${name}=["a", "b"]'.`,
      );
    inputs[name] = value;
  }
  return inputs;
}

/** The usage error for arguments beyond the one a command takes: they are most often the words of an
 * unquoted value (`--input product=a folding kettle`). */
export function extraArguments(what: string, positionals: readonly string[]): UsageError {
  const listed = positionals.map((argument) => `"${argument}"`).join(", ");
  return new UsageError(
    `${what} (got ${positionals.length} arguments: ${listed}). Quote a value that has spaces: --input product="a folding kettle".`,
  );
}

/** `--reuse A,B --reuse C` as run directories resolved against `cwd`. */
export function readReuseDirs(values: readonly string[] | undefined, cwd: string): string[] {
  const dirs = (values ?? []).flatMap((value) => value.split(",")).map((dir) => dir.trim());
  if (dirs.some((dir) => dir === "")) throw new UsageError("Expected --reuse RUN_DIR[,RUN_DIR...], got an empty name.");
  return dirs.map((dir) => resolve(cwd, dir));
}
