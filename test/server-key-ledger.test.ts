import { describe, expect, it } from "vitest";
import { keyConfigSchema } from "../src/server/config.js";
import { ITEMISED_BILLS, KeyAccount } from "../src/server/key-account.js";

function bill(account: KeyAccount, requestId: string, yuan: number, kind: "chat" | "music" = "chat") {
  const hold = account.hold(yuan);
  if (hold === undefined) throw new Error("quota refused the hold");
  return hold.commit({
    requestId,
    kind,
    ...(kind === "music" ? { operation: "generate" as const } : { model: "beta-4o-mini" }),
  });
}

describe("a key's ledger", () => {
  it("lists the most recent billed requests, counts the older ones, and keeps the totals exact", () => {
    const account = new KeyAccount(keyConfigSchema.parse({ key: "sk-ledger", quota: 1_000_000 }));
    const total = 2 * ITEMISED_BILLS + 123;
    for (let index = 0; index < total; index++) bill(account, `r${index}`, 0.01);
    const stats = account.stats();
    expect(stats.billed).toHaveLength(ITEMISED_BILLS);
    expect(stats.billed.at(-1)?.requestId).toBe(`r${total - 1}`);
    expect(stats.billed[0]?.requestId).toBe(`r${total - ITEMISED_BILLS}`);
    expect(stats.billedDropped).toBe(total - ITEMISED_BILLS);
    expect(stats.spentYuan).toBeCloseTo(total * 0.01, 6);
  });

  it("refunds a failed music call even after the list has moved past its entry", () => {
    const account = new KeyAccount(keyConfigSchema.parse({ key: "sk-music", quota: 1_000_000 }));
    bill(account, "music-1", 0.5, "music");
    for (let index = 0; index < 2 * ITEMISED_BILLS; index++) bill(account, `r${index}`, 0.01);
    expect(account.stats().billed.some((entry) => entry.requestId === "music-1")).toBe(false);
    const before = account.stats().spentYuan;
    account.refund("music-1");
    expect(account.stats().spentYuan).toBeCloseTo(before - 0.5, 6);
    // A second refund of the same call gives nothing back.
    account.refund("music-1");
    expect(account.stats().spentYuan).toBeCloseTo(before - 0.5, 6);
  });

  it("marks a listed music entry refunded", () => {
    const account = new KeyAccount(keyConfigSchema.parse({ key: "sk-listed", quota: 10 }));
    bill(account, "music-2", 0.5, "music");
    account.refund("music-2");
    expect(account.stats().billed).toMatchObject([{ requestId: "music-2", refunded: true }]);
    expect(account.stats().spentYuan).toBe(0);
  });
});
