import { describe, expect, it } from "vitest";
import { diffValues, lineDiff } from "../src/workflow/run-diff/diff-values.js";

const image = (name: string) => ({ artifact: `artifacts/${name}.png`, mime: "image/png", width: 512, height: 512 });

describe("diffValues", () => {
  it.each([
    ["equal values", { text: "a", n: [1, 2] }, { text: "a", n: [1, 2] }, []],
    ["a changed string field", { text: "a" }, { text: "b" }, [{ path: "text", type: "text" }]],
    ["a changed item of an equal-length list", ["x", "y"], ["x", "z"], [{ path: "[1]", type: "text" }]],
    ["a list of another length", [1], [1, 2], [{ path: "", type: "value", a: [1], b: [1, 2] }]],
    ["a field on one side only", { a: 1 }, { a: 1, b: true }, [{ path: "b", type: "value", b: true }]],
    ["an image whose bytes changed", image("one"), image("two"), [{ path: "", type: "media" }]],
    ["an image added where there was none", {}, { poster: image("two") }, [{ path: "poster", type: "media" }]],
    [
      "the same image with another field changed",
      { ...image("one"), model: "m1" },
      { ...image("one"), model: "m2" },
      [{ path: "model", type: "text" }],
    ],
    ["an image replaced by text", image("one"), "text", [{ path: "", type: "value" }]],
  ])("finds %s", (_name, a, b, expected) => {
    expect(diffValues(a, b)).toMatchObject(expected);
  });

  it("gives a line diff with context, one hunk per distant change", () => {
    const before = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`).join("\n");
    const after = before.replace("line 2\n", "line two\n").replace("line 19", "line nineteen");
    const hunks = lineDiff(before, after);
    expect(hunks).toHaveLength(2);
    expect(hunks[0]).toMatchObject({ oldStart: 1, newStart: 1 });
    expect(hunks[0]!.lines).toEqual([" line 1", "-line 2", "+line two", " line 3", " line 4", " line 5"]);
    expect(hunks[1]!.lines).toContain("+line nineteen");
  });
});
