import type { IncomingMessage, ServerResponse } from "node:http";
import type { GatewayContext } from "./gateway-context.js";
import { sendError } from "./send-response.js";

/**
 * `GET {root}/musicapi/audio/{id}.wav`: a completed clip's audio. No key is needed (an audio
 * player cannot send one); the id is an unguessable UUID. Byte ranges are served for seeking.
 */
export function serveAudio(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  file: string,
): void {
  const audio = context.music.audio(file.replace(/\.wav$/, ""));
  if (!audio)
    return sendError(
      response,
      404,
      "not_found",
      "No audio here: the clip is unknown or not complete yet. Poll get until audio_url is set.",
    );
  const headers = { "content-type": "audio/wav", "accept-ranges": "bytes", "cache-control": "private, max-age=3600" };
  const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? "");
  let start = 0;
  let end = audio.length - 1;
  if (range && (range[1] || range[2])) {
    if (range[1]) {
      start = Number(range[1]);
      if (range[2]) end = Math.min(end, Number(range[2]));
    } else {
      start = Math.max(0, audio.length - Number(range[2]));
    }
    if (start > end || start >= audio.length) {
      response.writeHead(416, { ...headers, "content-range": `bytes */${audio.length}` });
      response.end();
      return;
    }
    response.writeHead(206, {
      ...headers,
      "content-range": `bytes ${start}-${end}/${audio.length}`,
      "content-length": end - start + 1,
    });
  } else {
    response.writeHead(200, { ...headers, "content-length": audio.length });
  }
  response.end(request.method === "HEAD" ? undefined : audio.subarray(start, end + 1));
}
