import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError, ToolInputError } from "../src/errors.js";
import { createCurrentTimeTool, describeTime } from "../tools/current-time.js";

const fixed = new Date("2024-07-01T12:34:56.789Z");

describe("current_time tool", () => {
  it("returns the injected clock's time in the default zone as JSON", async () => {
    const tool = createCurrentTimeTool({ now: () => fixed, timeZone: "UTC" });
    expect(JSON.parse(await tool.invoke({}))).toEqual({
      timeZone: "UTC",
      local: "2024-07-01T12:34:56+00:00",
      weekday: "Monday",
      utc: "2024-07-01T12:34:56.789Z",
      unixMs: fixed.getTime(),
    });
  });

  it.each([
    ["America/New_York", "2024-07-01T08:34:56-04:00", "Monday"],
    ["Asia/Kolkata", "2024-07-01T18:04:56+05:30", "Monday"],
    ["Asia/Kathmandu", "2024-07-01T18:19:56+05:45", "Monday"],
    ["Pacific/Kiritimati", "2024-07-02T02:34:56+14:00", "Tuesday"],
    ["Pacific/Pago_Pago", "2024-07-01T01:34:56-11:00", "Monday"],
    ["asia/shanghai", "2024-07-01T20:34:56+08:00", "Monday"],
  ])("gives the local time in %s", async (timeZone, local, weekday) => {
    const result = JSON.parse(await createCurrentTimeTool({ now: () => fixed, timeZone: "UTC" }).invoke({ timeZone }));
    expect(result).toMatchObject({ local, weekday, utc: fixed.toISOString() });
    expect(result.timeZone.toLowerCase()).toBe(timeZone.toLowerCase());
  });

  it("follows daylight saving time", async () => {
    const winter = createCurrentTimeTool({ now: () => new Date("2024-01-15T12:00:00Z"), timeZone: "Europe/Paris" });
    expect(JSON.parse(await winter.invoke({})).local).toBe("2024-01-15T13:00:00+01:00");
  });

  it("refuses an unknown zone with a message naming valid ones", async () => {
    const tool = createCurrentTimeTool({ now: () => fixed, timeZone: "UTC" });
    await expect(tool.invoke({ timeZone: "Mars/Olympus_Mons" })).rejects.toThrow(ToolInputError);
    await expect(tool.invoke({ timeZone: "Mars/Olympus_Mons" })).rejects.toMatchObject({
      code: "unknown_time_zone",
      message: expect.stringContaining('Unknown time zone "Mars/Olympus_Mons". Use an IANA name such as'),
    });
  });

  it("refuses an unknown default zone when the tool is created", () => {
    expect(() => createCurrentTimeTool({ timeZone: "Nowhere/Town" })).toThrow(ConfigError);
  });

  it("uses the real clock when none is injected", async () => {
    const before = Date.now();
    const { unixMs } = JSON.parse(await createCurrentTimeTool({ timeZone: "UTC" }).invoke({}));
    expect(unixMs).toBeGreaterThanOrEqual(before);
    expect(unixMs).toBeLessThanOrEqual(Date.now());
  });

  it("gives a local time with offset that parses back to the same instant", () => {
    const zones = [
      "UTC",
      "America/Los_Angeles",
      "Europe/London",
      "Asia/Kolkata",
      "Australia/Lord_Howe",
      "America/St_Johns",
    ];
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1971-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true }),
        fc.constantFrom(...zones),
        (date, zone) => {
          const { local } = describeTime(date, zone);
          expect(Date.parse(local)).toBe(Math.floor(date.getTime() / 1000) * 1000);
        },
      ),
    );
  });
});
