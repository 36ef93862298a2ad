/** What a response body holds, told by its first bytes: a JSON document, a web page, server-sent
 * events, or none of these (binary or plain text). */
export type BodyKind = "json" | "page" | "events" | "other";

// A byte order mark and whitespace may come first; neither says what follows.
const LEADING = new Set([0x20, 0x09, 0x0a, 0x0d, 0xef, 0xbb, 0xbf]);

/**
 * The kind of a body from its first pieces, whatever its content type says: relays serve event
 * streams as application/json (vllm-project/vllm-ascend PR #6985) or text/plain, and JSON as
 * text/event-stream. An event stream starts with a field or a comment, never with `{`, `[` or `<`.
 * Undefined while the pieces hold nothing but whitespace.
 */
export function bodyKind(pieces: readonly Uint8Array[]): BodyKind | undefined {
  // Inside a comment line that came first: OpenRouter sends ": OPENROUTER PROCESSING" lines before a
  // whole JSON reply too (router-for-me/CLIProxyAPI#417), so what follows them decides.
  let comment = false;
  let sawComment = false;
  for (const [index, piece] of pieces.entries()) {
    for (const [offset, byte] of piece.entries()) {
      if (comment) {
        if (byte === 0x0a || byte === 0x0d) comment = false;
        continue;
      }
      if (LEADING.has(byte)) continue;
      if (byte === 0x7b || byte === 0x5b) return "json";
      if (byte === 0x3c) return "page";
      if (byte === 0x3a) {
        comment = sawComment = true;
        continue;
      }
      if (byte < 0x61 || byte > 0x7a) return sawComment ? "events" : "other";
      // A line of an event stream starts with a field name; plain text ("unsupported model: x",
      // HKUDS/nanobot PR #2289) is no stream.
      const rest =
        offset + 6 <= piece.length
          ? Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength)
          : Buffer.concat(pieces.slice(index));
      const start = rest.toString("latin1", offset, offset + 6);
      if (FIELD.test(start) || sawComment) return "events";
      return FIELDS.some((field) => field.startsWith(start)) ? undefined : "other";
    }
  }
  return undefined;
}

const FIELD = /^(?:data|event|id|retry):/;
const FIELDS = ["data:", "event:", "id:", "retry:"];

/** The text without the byte order mark some servers put first (RFC 8259 section 8.1 lets a reader ignore it). */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

const DONE_TAIL = /(?:data:[ \t]*)?\[DONE\]$/;
const LEADING_COMMENTS = /^(?:\s*:[^\n\r]*)+/;

/** The JSON document of a whole body: without a leading byte order mark or keep-alive comment
 * lines, and without the `data: [DONE]` some relays glue after it (decolua/9router#1396 and #3492). */
export function jsonTextOf(text: string): string {
  let body = withoutBom(text).trimEnd();
  if (body.trimStart().startsWith(":")) body = body.replace(LEADING_COMMENTS, "");
  return body.endsWith("[DONE]") ? body.replace(DONE_TAIL, "") : body;
}
