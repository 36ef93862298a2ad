import type { IncomingMessage, ServerResponse } from "node:http";
import { MUSIC_PATHS } from "../gateway/wire.js";
import { NOT_OFFERED } from "./not-offered-route.js";

/** The interface version label the spec gives (section 9). */
export const API_VERSION = "2026-07-15";

const ENDPOINTS = [
  [
    "POST",
    "/v1/chat/completions",
    "Chat completion: messages, tools, vision, audio/video (gamma-2.5), image generation, SSE streaming",
  ],
  ["GET", "/v1/models", "The models the presented key may call"],
  ["POST", `/musicapi/api/${MUSIC_PATHS.generate}`, "Music generation: prompt, make_instrumental; yields 2 clips (¥2)"],
  ["GET", `/musicapi/api/${MUSIC_PATHS.get}?ids=a,b`, "Clips; audio_url once complete"],
  ["GET", `/musicapi/api/${MUSIC_PATHS.getLimit}`, "Quota report: credits_left, svc_key_quota (free)"],
  ["POST", `/musicapi/api/${MUSIC_PATHS.continuation}`, "Continuation of a clip: audio_id, prompt, continue_at (¥1)"],
  ["POST", `/musicapi/api/${MUSIC_PATHS.stems}`, "Stem (accompaniment) separation: audio_id (¥1)"],
  ["POST", `/musicapi/api/${MUSIC_PATHS.lyrics}`, "Lyrics: prompt (¥0.2)"],
  ["POST", `/musicapi/api/${MUSIC_PATHS.concatenation}`, "Concatenation of a continued clip: clip_id (¥0.5)"],
] as const;

const IDEMPOTENCY_NOTE =
  "Billed POSTs may carry Idempotency-Key: a repeat with the same key and body replays the billed answer (idempotent-replayed: true) unbilled; another body gets 422 idempotency_key_reused.";

function description(rootURL: string) {
  return {
    object: "interface_description",
    name: "svc-flow local gateway",
    version: API_VERSION,
    base_url: `${rootURL}/v1`,
    root_url: rootURL,
    authentication: "Every request carries Authorization: Bearer sk-...",
    idempotency: IDEMPOTENCY_NOTE,
    endpoints: ENDPOINTS.map(([method, path, summary]) => ({ method, path, summary })),
    not_offered: [...new Set(Object.values(NOT_OFFERED))],
    note: "This is an interface description, not a chat page. Point a chat-completions client at base_url.",
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`);
}

function html(rootURL: string): string {
  const rows = ENDPOINTS.map(
    ([method, path, summary]) =>
      `<tr><td>${method}</td><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml(summary)}</td></tr>`,
  ).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc-flow local gateway ${API_VERSION}</title></head>
<body>
<h1>svc-flow local gateway</h1>
<p>Interface version <strong>${API_VERSION}</strong>. This page describes the interface; it is not a chat page.</p>
<p>Base URL: <code>${escapeHtml(rootURL)}/v1</code>. Every request carries <code>Authorization: Bearer sk-...</code>.</p>
<table border="1" cellpadding="4"><tr><th>Method</th><th>Path</th><th>What</th></tr>
${rows}
</table>
<p>${escapeHtml(IDEMPOTENCY_NOTE)}</p>
<p>Not offered: ${[...new Set(Object.values(NOT_OFFERED))].join(", ")}.</p>
</body></html>
`;
}

const cache = new Map<string, { json: string; html: string }>();

/** `GET /v1` (and `/`): the interface description, as HTML for a browser and JSON otherwise. No key needed. */
export function handleDescribe(request: IncomingMessage, response: ServerResponse, rootURL: string): void {
  let pages = cache.get(rootURL);
  if (!pages) {
    pages = { json: JSON.stringify(description(rootURL), null, 2), html: html(rootURL) };
    cache.set(rootURL, pages);
  }
  const wantsHtml = /text\/html/i.test(request.headers.accept ?? "");
  const body = wantsHtml ? pages.html : pages.json;
  response.writeHead(200, {
    "content-type": wantsHtml ? "text/html; charset=utf-8" : "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "x-svc-api-version": API_VERSION,
  });
  response.end(request.method === "HEAD" ? undefined : body);
}
