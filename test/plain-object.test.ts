import { describe, expect, it } from "vitest";
import { arrayOfLength, emptyArray } from "../src/chat/plain-object.js";

describe("plain-object array helpers", () => {
  it("makes fresh arrays of any length, each slot undefined until set", () => {
    for (let length = 0; length <= 7; length++) {
      const first = arrayOfLength<number>(length);
      const second = arrayOfLength<number>(length);
      expect(first).toHaveLength(length);
      expect(first).toEqual(Array.from({ length }, () => undefined));
      expect(first).not.toBe(second);
      // Filling one never shows in another (the templates are copied, not shared).
      for (let index = 0; index < length; index++) first[index] = index;
      expect(arrayOfLength<number>(length).every((value) => value === undefined)).toBe(true);
      expect(Array.isArray(first) && Object.getPrototypeOf(first) === Array.prototype).toBe(true);
    }
  });

  it("makes a fresh empty array each time", () => {
    const first = emptyArray<number>();
    first.push(1);
    expect(emptyArray()).toEqual([]);
  });
});
