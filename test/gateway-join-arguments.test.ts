import { describe, expect, it } from "vitest";
import { joinArguments } from "../src/gateway/join-arguments.js";

describe("joinArguments", () => {
  it.each([
    ["appends a piece to nothing", "", '{"a"', '{"a"', '{"a"'],
    ["appends a real continuation", '{"a":', "1}", '{"a":1}', "1}"],
    ["takes a resend of everything so far plus more", '{"a": "x', '{"a": "xy"}', '{"a": "xy"}', 'y"}'],
    ["drops an exact resend", '{"a":1}', '{"a":1}', '{"a":1}', ""],
    [
      "drops complete arguments restated with other spacing",
      '{"a": 1, "b": [2]}',
      '{"a":1,"b":[2]}',
      '{"a": 1, "b": [2]}',
      "",
    ],
    ["appends a different complete object (not silently dropped)", '{"a":1}', '{"a":2}', '{"a":1}{"a":2}', '{"a":2}'],
    ["appends an empty piece as nothing", '{"a":1}', "", '{"a":1}', ""],
  ])("%s", (_name, sofar, fragment, joined, added) => {
    expect(joinArguments(sofar, fragment)).toEqual({ joined, added });
  });
});
