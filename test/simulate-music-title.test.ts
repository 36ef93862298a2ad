import { describe, expect, it } from "vitest";
import { musicTitle } from "../src/server/simulate/index.js";

describe("a simulated clip's title", () => {
  it("names the prompt's subject and the kind of piece", () => {
    expect(musicTitle("A bright 8-second jingle for a solar lantern, ukulele and hand claps")).toBe(
      "Solar Lantern Jingle",
    );
  });

  it("falls back to the prompt's first whole words, never ending on a word that leads into the rest", () => {
    expect(musicTitle("calm piano over rain in the city at night, slow")).toBe("Calm Piano Over Rain");
  });

  it("gives a title to a prompt with no words", () => {
    expect(musicTitle("!!!")).toBe("Untitled");
  });
});
