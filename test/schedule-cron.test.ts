import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/errors.js";
import { CronSchedule } from "../src/workflow/schedule/cron-schedule.js";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe("CronSchedule", () => {
  it("fires at local time in its time zone, across a daylight-saving change", () => {
    const schedule = new CronSchedule("0 6 * * 1-5", "Europe/Paris", "digest.yaml");
    // Friday 27 March 2026 06:00 Paris is 05:00Z (winter time); Monday 30 March 06:00 is 04:00Z (summer time).
    expect(iso(schedule.next(at("2026-03-27T04:59:59Z")))).toBe("2026-03-27T05:00:00.000Z");
    expect(iso(schedule.next(at("2026-03-27T05:00:00Z")))).toBe("2026-03-30T04:00:00.000Z");
  });

  it.each([
    ["*/10 * * * * *", "2026-01-01T00:00:03.500Z", "2026-01-01T00:00:10.000Z"],
    ["@daily", "2026-01-01T10:00:00Z", "2026-01-02T00:00:00.000Z"],
    ["30 9 * * MON-FRI", "2026-01-03T00:00:00Z", "2026-01-05T09:30:00.000Z"],
  ])("reads %s", (cron, after, expected) => {
    expect(iso(new CronSchedule(cron, "UTC", "w.yaml").next(at(after)))).toBe(expected);
  });

  it("lists the firings in a window, oldest first, keeping the latest when there are too many", () => {
    const schedule = new CronSchedule("* * * * * *", "UTC", "w.yaml");
    const window = schedule.between(at("2026-01-01T00:00:00Z"), at("2026-01-01T00:00:03.700Z"), 10);
    expect(window.times.map(iso)).toEqual([
      "2026-01-01T00:00:01.000Z",
      "2026-01-01T00:00:02.000Z",
      "2026-01-01T00:00:03.000Z",
    ]);
    expect(window.more).toBe(false);
    const capped = schedule.between(at("2026-01-01T00:00:00Z"), at("2026-01-01T00:01:00Z"), 5);
    expect(capped.times.map(iso)).toEqual(
      [56, 57, 58, 59].map((s) => `2026-01-01T00:00:${s}.000Z`).concat("2026-01-01T00:01:00.000Z"),
    );
    expect(capped.more).toBe(true);
  });

  it.each([
    ["0 6 * *", undefined, /digest\.yaml: schedule\.cron "0 6 \* \*" is not a cron expression .*Write five fields/],
    ["61 * * * *", undefined, /schedule\.cron "61 \* \* \* \*" is not a cron expression/],
    [
      "0 6 * * *",
      "Mars/Base",
      /schedule\.timezone "Mars\/Base" is not an IANA time zone\. Use a name such as "Europe\/Paris"/,
    ],
  ])("refuses cron %s (zone %s) with the fix", (cron, zone, message) => {
    expect(() => new CronSchedule(cron, zone, "digest.yaml")).toThrow(ConfigError);
    expect(() => new CronSchedule(cron, zone, "digest.yaml")).toThrow(message);
  });
});
