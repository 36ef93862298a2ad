import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMediaPart, MAX_MEDIA_BYTES } from "../src/workflow/media/load-media.js";
import { makeWav } from "./chat-media.js";

// Audio given as a link is downloaded and sent inline; these talk to a real HTTP server on port 0.
describe("audio links in workflow media", () => {
  const wav = makeWav(0.5);
  let server: Server;
  let base: string;
  // A deadline no download here meets by accident on a loaded machine; the trickle test sets its own.
  const folders = { baseDir: "/nonexistent", runDir: "/nonexistent", downloadTimeoutMs: 60_000 };

  beforeAll(async () => {
    server = createServer((request, response) => {
      switch (request.url) {
        case "/clip.wav":
          response.writeHead(200, { "content-type": "audio/wav" }).end(wav);
          return;
        case "/moved":
          response.writeHead(302, { location: "/clip.wav" }).end();
          return;
        case "/missing.wav":
          response.writeHead(404).end("not here");
          return;
        case "/huge.wav":
          response.writeHead(200, { "content-type": "audio/wav", "content-length": String(MAX_MEDIA_BYTES + 1) });
          response.write(wav);
          return;
        case "/trickle.wav":
          // Headers at once, then one byte and silence: only a deadline on the whole download ends it.
          response.writeHead(200, { "content-type": "audio/wav" });
          response.write(wav.subarray(0, 1));
          return;
      }
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it("downloads an audio link and sends its bytes inline, following a redirect", async () => {
    const part = await loadMediaPart(`${base}/moved`, "audio", folders);
    expect(part).toEqual({ type: "input_audio", input_audio: { data: wav.toString("base64"), format: "wav" } });
  });

  it("ends a download whose body trickles with a timeout that names the fix", async () => {
    const failure = loadMediaPart(`${base}/trickle.wav`, "audio", { ...folders, downloadTimeoutMs: 500 });
    await expect(failure).rejects.toMatchObject({ code: "timeout", message: /took over 0.5s\. Save the file/ });
  });

  it("refuses a link that declares more bytes than one request carries before reading it", async () => {
    const failure = loadMediaPart(`${base}/huge.wav`, "audio", folders);
    await expect(failure).rejects.toMatchObject({ code: "invalid_parameter", message: /over 20 MiB/ });
  });

  it("reports a missing link with its HTTP status, not retryable", async () => {
    const failure = loadMediaPart(`${base}/missing.wav`, "audio", folders);
    await expect(failure).rejects.toMatchObject({ status: 404, retryable: false, message: /HTTP 404/ });
  });

  it("keeps the caller's abort an abort, not a timeout", async () => {
    const controller = new AbortController();
    const failure = loadMediaPart(`${base}/trickle.wav`, "audio", { ...folders, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(failure).rejects.not.toMatchObject({ code: "timeout" });
  });
});
