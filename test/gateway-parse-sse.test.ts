import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StreamError } from "../src/errors.js";
import { parseSse, type SseEvent } from "../src/gateway/parse-sse.js";

const encoder = new TextEncoder();

async function collect(chunks: Iterable<Uint8Array | string>): Promise<SseEvent[]> {
  async function* source() {
    yield* chunks;
  }
  const events: SseEvent[] = [];
  for await (const event of parseSse(source())) events.push(event);
  return events;
}

function splitAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    parts.push(bytes.subarray(start, point));
    start = point;
  }
  parts.push(bytes.subarray(start));
  return parts;
}

describe("parseSse", () => {
  it.each([
    ["LF line ends", "data: a\n\ndata: b\n\n", [{ data: "a" }, { data: "b" }]],
    ["CRLF line ends", "data: a\r\n\r\ndata: b\r\n\r\n", [{ data: "a" }, { data: "b" }]],
    ["CR line ends", "data: a\r\rdata: b\r\r", [{ data: "a" }, { data: "b" }]],
    ["multi-line data joined with LF", "data: one\ndata: two\n\n", [{ data: "one\ntwo" }]],
    ["comments are skipped", ": keep-alive\ndata: x\n: another\n\n", [{ data: "x" }]],
    ["event and id fields", "event: delta\nid: 7\ndata: x\n\n", [{ event: "delta", id: "7", data: "x" }]],
    [
      "the id carries over to later events",
      "id: 7\ndata: x\n\ndata: y\n\n",
      [
        { id: "7", data: "x" },
        { id: "7", data: "y" },
      ],
    ],
    ["no space after the colon", "data:x\n\n", [{ data: "x" }]],
    ["only one leading space is removed", "data:  x\n\n", [{ data: " x" }]],
    ["a bare field name is an empty data line", "data\ndata: x\n\n", [{ data: "\nx" }]],
    ["blank lines without data dispatch nothing", "\n\n\ndata: x\n\n\n\n", [{ data: "x" }]],
    ["retry field", "retry: 3000\ndata: x\n\n", [{ retryMs: 3000, data: "x" }]],
    ["[DONE] ends the stream", "data: a\n\ndata: [DONE]\n\ndata: never\n\n", [{ data: "a" }]],
    [
      "a last event without its blank line is kept",
      'data: a\n\ndata: {"partial"',
      [{ data: "a" }, { data: '{"partial"' }],
    ],
    ["[DONE] without a trailing newline ends quietly", "data: a\n\ndata: [DONE]", [{ data: "a" }]],
    ["a blank data line is a keep-alive, not an event", "data: \n\ndata:\n\ndata:  \n\ndata: x\n\n", [{ data: "x" }]],
    ["a bare [DONE] line ends the stream", "data: a\n\n[DONE]\n\ndata: never\n\n", [{ data: "a" }]],
    ["[DONE] padded with spaces ends the stream", "data: a\n\ndata: [DONE] \n\ndata: never\n\n", [{ data: "a" }]],
    ["a byte order mark is dropped", "\uFEFFdata: a\n\n", [{ data: "a" }]],
  ])("%s", async (_name, input, expected) => {
    expect(await collect([encoder.encode(input)])).toEqual(expected);
  });

  it("rejects a line that is no SSE field instead of skipping it", async () => {
    await expect(collect([encoder.encode('data: a\n\n{"oops": true}\n\n')])).rejects.toThrow(StreamError);
    await expect(collect([encoder.encode("dat: a\n\n")])).rejects.toThrow(/unknown field "dat"/);
  });

  it("rejects bytes that are not UTF-8", async () => {
    await expect(collect([new Uint8Array([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xff, 0x0a, 0x0a])])).rejects.toThrow(
      /not valid UTF-8/,
    );
  });

  it("rejects a stream that ends inside a UTF-8 character", async () => {
    const bytes = encoder.encode("data: é");
    await expect(collect([bytes.subarray(0, bytes.length - 1)])).rejects.toThrow(/inside a UTF-8 character/);
  });

  it("keeps a CRLF split between two chunks as one line end", async () => {
    expect(await collect(["data: a\r", "\n", "\r", "\ndata: b\r\n\r\n"])).toEqual([{ data: "a" }, { data: "b" }]);
  });

  it("does not swallow a blank line after a chunk holding only the LF of a split CRLF", async () => {
    expect(await collect(["data: a\r", "\n", "\ndata: b\n\n"])).toEqual([{ data: "a" }, { data: "b" }]);
  });

  it("gives the same events for a stream split at every byte boundary", async () => {
    const text =
      'event: x\r\ndata: {"content":"héllo 😀 世界"}\r\n\n: ping\rdata: a\rdata: b\r\rdata: c\n\ndata: [DONE]\n\n';
    const bytes = encoder.encode(text);
    const whole = await collect([bytes]);
    expect(whole).toHaveLength(3);
    for (let index = 0; index <= bytes.length; index++) {
      expect(await collect(splitAt(bytes, [index]))).toEqual(whole);
    }
    expect(await collect(splitAt(bytes, Array.from(bytes.keys())))).toEqual(whole);
  });

  const lineText = fc.string({ unit: "binary", maxLength: 30 }).filter((text) => !/[\r\n]/.test(text));
  const eventArbitrary = fc
    .record({
      event: fc.option(
        lineText.filter((text) => text !== "" && !text.startsWith(" ")),
        { nil: undefined },
      ),
      lines: fc.array(lineText, { minLength: 1, maxLength: 4 }),
      comment: fc.boolean(),
    })
    // Blank data is a keep-alive and [DONE] the end: neither is an event.
    .filter(({ lines }) => !["", "[DONE]"].includes(lines.join("\n").trim()));

  it("parses any events with any line ends, split anywhere (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventArbitrary, { maxLength: 6 }),
        fc.array(fc.constantFrom("\n", "\r\n", "\r"), { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        async (events, endings, cuts) => {
          let text = "";
          let lineIndex = 0;
          const line = (content: string): void => {
            let ending = endings[lineIndex++ % endings.length] as string;
            // "\r" then a line end starting with "\n" would read as one CRLF: the writer avoids it.
            if (ending === "\n" && text.endsWith("\r")) ending = "\r\n";
            text += content + ending;
          };
          for (const event of events) {
            if (event.comment) line(": comment");
            if (event.event !== undefined) line(`event: ${event.event}`);
            for (const data of event.lines) line(`data: ${data}`);
            line("");
          }
          const expected = events.map((event) => ({
            ...(event.event === undefined ? {} : { event: event.event }),
            data: event.lines.join("\n"),
          }));
          expect(await collect(splitAt(encoder.encode(text), cuts))).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
