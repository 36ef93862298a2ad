import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitArguments, splitContent } from "../src/server/split-content.js";

const isLoneSurrogate = (text: string) => /^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(text);

describe("splitting a reply into stream deltas", () => {
  it("gives back the content exactly when the deltas are joined", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), (text) => {
        expect(splitContent(text).join("")).toBe(text);
      }),
    );
  });

  it("never splits a surrogate pair", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "bc", " ", "\n", "é", "中文", "😀", "👍🏽", "𝄞"), { maxLength: 300 }),
        (parts) => {
          const text = parts.join("");
          for (const piece of [...splitContent(text), ...splitArguments(text)])
            expect(isLoneSurrogate(piece)).toBe(false);
        },
      ),
    );
  });

  it("gives back tool-call arguments exactly when the fragments are joined", () => {
    fc.assert(
      fc.property(fc.json(), (json) => {
        expect(splitArguments(json).join("")).toBe(json);
      }),
    );
  });

  it("sends a few words per delta", () => {
    const deltas = splitContent("The quick brown fox jumps over the lazy dog and runs far away.");
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.every((delta) => delta.trim().split(/\s+/).length <= 3)).toBe(true);
  });

  it("sends a long data URI in a few large pieces", () => {
    const uri = `![image](data:image/png;base64,${"A".repeat(50_000)})`;
    expect(splitContent(uri).length).toBeLessThan(10);
  });
});
