import { describe, expect, it } from "vitest";
import { keyConfigSchema } from "../src/server/config.js";
import { KeyStore } from "../src/server/key-store.js";

const store = () =>
  new KeyStore([keyConfigSchema.parse({ key: "sk-one", quota: 1 }), keyConfigSchema.parse({ key: "sk-two" })]);

describe("looking a key up by its Authorization header", () => {
  it("accepts any case of Bearer and spaces around the key", () => {
    const keys = store();
    const one = keys.find("sk-one");
    for (const header of ["Bearer sk-one", "bearer   sk-one", "BEARER sk-one  ", "Bearer sk-one"])
      expect(keys.findBearer(header)).toBe(one);
  });

  it("gives each header its own key, whatever was looked up before", () => {
    const keys = store();
    const [one, two] = [keys.find("sk-one"), keys.find("sk-two")];
    const sequence = [
      "Bearer sk-one",
      "Bearer sk-two",
      "Bearer sk-one",
      "Bearer sk-nobody",
      "Bearer sk-one",
      "Basic sk-one",
      "Bearer sk-two",
    ];
    expect(sequence.map((header) => keys.findBearer(header))).toEqual([one, two, one, undefined, one, undefined, two]);
  });

  it("returns the live account, so a key spent since the last lookup is seen as deactivated", () => {
    const keys = store();
    const account = keys.findBearer("Bearer sk-one")!;
    expect(account.active).toBe(true);
    account.hold(1)!.commit({ requestId: "r1", kind: "chat", model: "beta-4o-mini" });
    expect(keys.findBearer("Bearer sk-one")).toBe(account);
    expect(keys.findBearer("Bearer sk-one")!.active).toBe(false);
  });

  it("tells a malformed header from an unknown key", () => {
    expect(KeyStore.isBearer("Bearer sk-nobody")).toBe(true);
    expect(KeyStore.isBearer("Bearer")).toBe(false);
    expect(KeyStore.isBearer("Basic abc")).toBe(false);
    expect(KeyStore.isBearer("Bearer two words")).toBe(false);
  });
});
