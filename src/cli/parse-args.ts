import { parseArgs } from "node:util";
import { closestName } from "../catalog/closest-name.js";
import { UsageError } from "./command.js";

/** Options as node:util parseArgs takes them. */
export type OptionSpec = NonNullable<Parameters<typeof parseArgs>[0]>["options"];

/** What parseCommandArgs returns for the options T: values typed by flag, and positionals. */
export type ParsedCommandArgs<T extends OptionSpec> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>
>;

/** Parses argv strictly; unknown flags and missing values become a UsageError (exit 2). */
export function parseCommandArgs<T extends OptionSpec>(argv: readonly string[], options: T): ParsedCommandArgs<T> {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(usageMessage(error as NodeJS.ErrnoException, options ?? {}));
  }
}

// node:util's messages speak of positionals and '-- "--x"'; a user who mistyped a flag wants the flag he meant.
function usageMessage(error: NodeJS.ErrnoException, options: NonNullable<OptionSpec>): string {
  const flag = /'(--?[^' =<]+)/.exec(error.message)?.[1];
  if (flag === undefined) return error.message;
  const name = flag.replace(/^--?/, "");
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const near = closestName(name, Object.keys(options));
    return `Unknown option ${flag}.${near === undefined ? "" : ` Did you mean --${near}?`}`;
  }
  const spec = options[name] as { type: string; value?: string } | undefined;
  if (error.code !== "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" || spec === undefined) return error.message;
  if (spec.type === "boolean") return `${flag} takes no value.`;
  const wanted = `${flag} ${spec.value ?? "VALUE"}`;
  return /ambiguous/.test(error.message)
    ? `${flag} needs a value (${wanted}); pass one that starts with a dash as ${flag}=VALUE.`
    : `${flag} needs a value: ${wanted}.`;
}

/** Parses a flag as a number, rejecting anything else with a message naming the flag. */
export function numberFlag(name: string, value: string | undefined, { min = -Infinity } = {}): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < min) {
    throw new UsageError(`Expected --${name} to be a number${min > -Infinity ? ` >= ${min}` : ""}, got "${value}".`);
  }
  return parsed;
}

/** Parses a flag as a whole number >= `min`, rejecting anything else with a message naming the flag. */
export function wholeNumberFlag(name: string, value: string | undefined, { min = 1 } = {}): number | undefined {
  const parsed = numberFlag(name, value, { min });
  if (parsed !== undefined && !Number.isSafeInteger(parsed))
    throw new UsageError(`Expected --${name} to be a whole number, got "${value}".`);
  return parsed;
}
