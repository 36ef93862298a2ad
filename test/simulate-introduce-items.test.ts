import { describe, expect, it } from "vitest";
import { introduceItems } from "../src/server/simulate/introduce-items.js";

describe("a simulated introduction to pasted items", () => {
  it("names the collection and lists its items' titles, in the sentences asked for", () => {
    const prompt = `Write a one-sentence introduction to the reading list "Autumn" with these entries: ${JSON.stringify(
      [{ title: "Dune" }, { title: "Emma" }],
    )}`;
    expect(introduceItems(prompt)).toBe("'Autumn' gathers two entries: Dune and Emma.");
  });

  it("finds captions one level down and counts past four as more", () => {
    const items = ["a", "b", "c", "d", "e", "f"].map((letter) => ({
      file: `${letter}.png`,
      entry: { caption: letter },
    }));
    expect(introduceItems(`An overview of these photos: ${JSON.stringify(items)}`)).toMatch(
      /^This collection gathers six photos: a, b, c, d and 2 more\./,
    );
  });

  it("leaves prompts that paste no items, or ask for something else, to the other writers", () => {
    expect(introduceItems("Write an introduction to solar lanterns.")).toBeUndefined();
    expect(introduceItems(`Three taglines for these: ${JSON.stringify([{ title: "Dune" }])}`)).toBeUndefined();
  });
});
