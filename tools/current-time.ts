import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ConfigError, ToolInputError } from "../src/errors.js";

/** Options of the current_time tool. */
export interface CurrentTimeToolOptions {
  /** Time zone used when the model names none. Default: the machine's zone. */
  timeZone?: string;
  /** The clock; tests pass a fixed one. Default `() => new Date()`. */
  now?: () => Date;
}

/** Input of the current_time tool. */
export const currentTimeSchema = z.object({
  timeZone: z
    .string()
    .min(1)
    .optional()
    .describe('IANA time zone, e.g. "Europe/Paris", "Asia/Shanghai" or "UTC". Omit for the default zone.'),
});

/** Returns the time zone's name with ICU's capitalisation, or undefined when the zone is unknown. */
export function canonicalTimeZone(timeZone: string): string | undefined {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat("en-US", { timeZone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  // ICU maps some current names to legacy ones (Asia/Kolkata -> Asia/Calcutta); keep the name asked for.
  return resolved.toLowerCase() === timeZone.toLowerCase() ? resolved : timeZone;
}

function parts(date: Date, timeZone: string): Record<string, string> {
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    weekday: "long",
    timeZoneName: "longOffset",
  });
  return Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
}

/** Describes an instant in a time zone: ISO local time with offset, weekday, UTC time and epoch ms. */
export function describeTime(date: Date, timeZone: string) {
  const p = parts(date, timeZone);
  // "GMT" alone means offset zero; otherwise the format is "GMT+05:30".
  const offset = p.timeZoneName === "GMT" ? "+00:00" : (p.timeZoneName ?? "GMT+00:00").slice(3);
  return {
    timeZone,
    local: `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${offset}`,
    weekday: p.weekday,
    utc: date.toISOString(),
    unixMs: date.getTime(),
  };
}

/** Creates the `current_time` tool: the current date and time, in a time zone the model may choose. */
export function createCurrentTimeTool(options: CurrentTimeToolOptions = {}) {
  const now = options.now ?? (() => new Date());
  const defaultZone = options.timeZone ?? new Intl.DateTimeFormat().resolvedOptions().timeZone;
  const checkedDefault = canonicalTimeZone(defaultZone);
  if (checkedDefault === undefined) {
    throw new ConfigError(`Unknown time zone "${defaultZone}". Pass an IANA zone such as "Europe/Paris" or "UTC".`);
  }
  return tool(
    async ({ timeZone }) => {
      const zone = timeZone === undefined ? checkedDefault : canonicalTimeZone(timeZone);
      if (zone === undefined) {
        throw new ToolInputError(
          `Unknown time zone "${timeZone}". Use an IANA name such as "America/New_York", "Europe/Berlin", ` +
            '"Asia/Tokyo" or "UTC", or omit timeZone for the default zone.',
          { code: "unknown_time_zone" },
        );
      }
      return JSON.stringify(describeTime(now(), zone));
    },
    {
      name: "current_time",
      description:
        "Returns the current date and time as JSON: local time with UTC offset (ISO 8601), weekday, " +
        `UTC time and Unix milliseconds. Optional timeZone is an IANA name; the default zone is ${checkedDefault}. ` +
        "Call it whenever the answer depends on today's date or the time.",
      schema: currentTimeSchema,
    },
  );
}
