import { pipeline, Transform, type TransformCallback } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  "x-gzip": createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * The body as its `content-encoding` says, decoded. We ask for `identity`, but a proxy may compress
 * whatever it is asked, and undici's `request` (unlike fetch) hands the bytes on as they came. Some
 * proxies built on fetch pass the header on over a body they already decoded (freelensapp/freelens-ai-extension#272,
 * preset-io/agor PR #1104), so the body's first bytes decide: a body that does not start the way
 * its coding does is read as it is. A coding not known here is left to the reader, which says what
 * is wrong with the bytes. `fail` makes the error for a body that starts like its coding but does
 * not decode.
 */
export function decodedBody<Body extends NodeJS.ReadableStream>(
  body: Body,
  contentEncoding: string | string[] | undefined,
  fail: (cause: unknown) => Error,
): Body | Transform {
  const coding = typeof contentEncoding === "string" ? contentEncoding.trim().toLowerCase() : undefined;
  const make = coding === undefined ? undefined : DECODERS[coding];
  if (make === undefined) return body;
  const decoder = new ContentDecoder(coding!, make, fail);
  pipeline(body, decoder, ignore);
  return decoder;
}

function ignore(): void {}

// How each coding's bytes start: gzip's magic number, zlib's header (RFC 1950: deflate, a checksum
// of 31); brotli has no magic number, so a body that starts like a chat reply, an event stream or a
// page is not it.
function startsEncoded(coding: string, head: Buffer): boolean {
  const [first = 0, second = 0] = head;
  if (coding === "gzip" || coding === "x-gzip") return first === 0x1f && second === 0x8b;
  if (coding === "deflate") return (first & 0x0f) === 8 && ((first << 8) | second) % 31 === 0;
  return !PLAIN_START.test(head.toString("latin1", 0, HEAD_BYTES));
}

const PLAIN_START = /^(?:\xEF\xBB\xBF)?\s*(?:[{<:]|(?:data|event|id|retry):)/;
// Enough to see the start of `retry:` after a byte order mark and a line break.
const HEAD_BYTES = 12;

/** Passes the body through a decoder, or as it is when its first bytes are not encoded. */
class ContentDecoder extends Transform {
  readonly #coding: string;
  readonly #make: () => Transform;
  readonly #fail: (cause: unknown) => Error;
  #head: Buffer[] | undefined = [];
  #decoder: Transform | undefined;

  constructor(coding: string, make: () => Transform, fail: (cause: unknown) => Error) {
    super();
    this.#coding = coding;
    this.#make = make;
    this.#fail = fail;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.#head === undefined) return this.#pass(chunk, done);
    this.#head.push(chunk);
    const head = Buffer.concat(this.#head);
    if (head.length < HEAD_BYTES) return done();
    this.#start(head);
    this.#pass(head, done);
  }

  override _flush(done: TransformCallback): void {
    const head = this.#head === undefined ? undefined : Buffer.concat(this.#head);
    if (head !== undefined && head.length > 0) {
      this.#start(head);
      this.#pass(head, ignore);
    }
    const decoder = this.#decoder;
    if (decoder === undefined) return done();
    decoder.once("end", () => done());
    decoder.end();
  }

  #start(head: Buffer): void {
    this.#head = undefined;
    if (!startsEncoded(this.#coding, head)) return;
    const decoder = this.#make();
    decoder.on("data", (piece: Buffer) => this.push(piece));
    decoder.on("error", (error) => this.destroy(this.#fail(error)));
    this.#decoder = decoder;
  }

  #pass(chunk: Buffer, done: TransformCallback): void {
    if (this.#decoder === undefined) {
      this.push(chunk);
      done();
    } else this.#decoder.write(chunk, () => done());
  }
}
