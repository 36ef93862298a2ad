import { Cron } from "croner";
import { ConfigError } from "../../errors.js";

/** A cron expression in a time zone: when a scheduled workflow fires. */
export class CronSchedule {
  /** The expression as written. */
  readonly cron: string;
  /** IANA time zone, or undefined for the machine's. */
  readonly timezone: string | undefined;
  readonly #pattern: Cron;

  /** Checks the expression and zone at once; `where` names the file in errors. */
  constructor(cron: string, timezone: string | undefined, where: string) {
    this.cron = cron;
    this.timezone = timezone;
    if (timezone !== undefined && !isTimeZone(timezone)) {
      throw new ConfigError(
        `${where}: schedule.timezone "${timezone}" is not an IANA time zone. Use a name such as "Europe/Paris" or "UTC".`,
      );
    }
    try {
      // Five fields (minute first) as in crontab; a sixth, leading field is seconds.
      this.#pattern = new Cron(cron, { paused: true, timezone, mode: "5-or-6-parts" });
    } catch (error) {
      throw new ConfigError(
        `${where}: schedule.cron "${cron}" is not a cron expression (${(error as Error).message.replace(/^CronPattern: /, "")}). Write five fields, e.g. "0 6 * * 1-5" for 06:00 on weekdays.`,
        { cause: error },
      );
    }
  }

  /** The first firing strictly after `afterMs`, or undefined when the expression never fires again. */
  next(afterMs: number): number | undefined {
    return this.#pattern.nextRun(new Date(afterMs))?.getTime();
  }

  /** Firings in (`afterMs`, `untilMs`], oldest first, at most the `limit` latest; `more` when older ones were left out. */
  between(afterMs: number, untilMs: number, limit: number): { times: number[]; more: boolean } {
    // croner counts back from the whole second before its reference; cron times are whole seconds.
    const reference = new Date(Math.floor(untilMs / 1000) * 1000 + 1000);
    const latest = this.#pattern.previousRuns(limit + 1, reference).map((date) => date.getTime());
    const times = latest.filter((time) => time > afterMs && time <= untilMs).reverse();
    const more = times.length > limit;
    return { times: more ? times.slice(1) : times, more };
  }
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
