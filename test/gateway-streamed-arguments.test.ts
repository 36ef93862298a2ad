import { describe, expect, it } from "vitest";
import { StreamedArguments } from "../src/gateway/streamed-arguments.js";

/** Adds the fragments in order; the deltas each gave, and the arguments' text at the end. */
function stream(fragments: readonly string[]): { added: string[]; text: string } {
  const args = new StreamedArguments();
  const added = fragments.map((fragment) => args.add(fragment));
  return { added, text: args.text };
}

describe("StreamedArguments", () => {
  it.each([
    ["appends fragments as the chat format does", ['{"a"', ":", "1}"], ['{"a"', ":", "1}"], '{"a":1}'],
    [
      "reads a resend of everything so far plus more as the more",
      ['{"a": "x', '{"a": "xy', '{"a": "xy"}'],
      ['{"a": "x', "y", '"}'],
      '{"a": "xy"}',
    ],
    ["adds nothing for an exact resend of complete arguments", ['{"a":1}', '{"a":1}'], ['{"a":1}', ""], '{"a":1}'],
    [
      "adds nothing for complete arguments restated with other spacing",
      ['{"a": 1, "b": [2]}', '{"a":1,"b":[2]}'],
      ['{"a": 1, "b": [2]}', ""],
      '{"a": 1, "b": [2]}',
    ],
    [
      "keeps a real continuation that starts with everything before it (a nested object under the same key)",
      ['{"filter":', '{"filter":"x"}}'],
      ['{"filter":', '"x"}}'],
      '{"filter":{"filter":"x"}}',
    ],
    [
      "appends a different complete object (not silently dropped)",
      ['{"a":1}', '{"a":2}'],
      ['{"a":1}', '{"a":2}'],
      '{"a":1}{"a":2}',
    ],
    ["takes an empty fragment as nothing", ['{"a":1}', ""], ['{"a":1}', ""], '{"a":1}'],
  ])("%s", (_name, fragments, added, text) => {
    expect(stream(fragments)).toEqual({ added, text });
  });
});
