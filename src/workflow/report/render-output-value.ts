import { htmlText } from "./escape-html.js";

// Only paths the artifact store writes are used as src: nothing in an output can point the page elsewhere.
const ARTIFACT_PATH = /^artifacts\/[A-Za-z0-9_-]+\.[a-z0-9]+$/;

interface MediaRef {
  readonly artifact: string;
  readonly mime: string;
  readonly bytes?: number;
  readonly width?: number;
  readonly height?: number;
  readonly title?: string;
}

/** Whether a value is an artifact reference the report can show: an image or audio file under artifacts/. */
function isMediaRef(value: unknown): value is MediaRef {
  if (typeof value !== "object" || value === null) return false;
  const { artifact, mime } = value as { artifact?: unknown; mime?: unknown };
  return typeof artifact === "string" && ARTIFACT_PATH.test(artifact) && typeof mime === "string" && /^(image|audio)\//.test(mime);
}

/** An image or audio artifact as an inline element, referenced by its path relative to the run directory. */
export function renderMedia(reference: MediaRef): string {
  const facts = [reference.mime, reference.bytes === undefined ? undefined : `${Math.ceil(reference.bytes / 1024)} KB`];
  if (reference.width !== undefined && reference.height !== undefined) facts.push(`${reference.width}×${reference.height}`);
  const caption = `${reference.title === undefined ? "" : `<strong>${htmlText(reference.title)}</strong> · `}<a href="${htmlText(reference.artifact)}">${htmlText(reference.artifact.slice(10, 22))}…</a> · ${htmlText(facts.filter(Boolean).join(" · "))}`;
  const element = reference.mime.startsWith("image/")
    ? `<img src="${htmlText(reference.artifact)}" alt="${htmlText(reference.title ?? "generated image")}" loading="eager">`
    : `<audio controls preload="metadata" src="${htmlText(reference.artifact)}"></audio>`;
  return `<figure class="media">${element}<figcaption>${caption}</figcaption></figure>`;
}

/** Every media reference inside a value, in order (deduplicated by path). */
export function findMedia(value: unknown, found: MediaRef[] = [], seen = new Set<string>()): MediaRef[] {
  if (isMediaRef(value)) {
    if (!seen.has(value.artifact)) {
      seen.add(value.artifact);
      found.push(value);
    }
  } else if (Array.isArray(value)) {
    for (const element of value) findMedia(element, found, seen);
  } else if (typeof value === "object" && value !== null) {
    for (const element of Object.values(value)) findMedia(element, found, seen);
  }
  return found;
}

/** A value as JSON, pretty-printed and escaped. */
export function renderJson(value: unknown): string {
  return `<pre class="json">${htmlText(JSON.stringify(value, null, 2) ?? "null")}</pre>`;
}

/**
 * A step's output or a run output: text as text, media inline (an image, an audio player), anything
 * else (structured output, tool results) as pretty JSON with its media shown above it.
 */
export function renderOutputValue(value: unknown): string {
  if (value === undefined || value === null) return `<p class="muted">No output.</p>`;
  if (typeof value === "string") return `<pre class="text">${htmlText(value)}</pre>`;
  if (isMediaRef(value)) return `<div class="gallery">${renderMedia(value)}</div>`;
  if (typeof value !== "object") return `<pre class="text">${htmlText(String(value))}</pre>`;
  const { text, toolCalls } = value as { text?: unknown; toolCalls?: unknown };
  // A chat reply ({ text, model, toolCalls }): its text is what a person wants to read.
  if (typeof text === "string" && !Array.isArray(value)) {
    const calls = Array.isArray(toolCalls) && toolCalls.length > 0 ? `<details><summary>Tool calls (${toolCalls.length})</summary>${renderJson(toolCalls)}</details>` : "";
    const rest = Object.fromEntries(Object.entries(value).filter(([name]) => !["text", "model", "toolCalls"].includes(name)));
    const extra = Object.keys(rest).length > 0 ? renderJson(rest) : "";
    return `<pre class="text">${htmlText(text)}</pre>${extra}${calls}`;
  }
  const media = findMedia(value);
  const gallery = media.length === 0 ? "" : `<div class="gallery">${media.map(renderMedia).join("")}</div>`;
  const json = media.length > 0 ? `<details><summary>Output as JSON</summary>${renderJson(value)}</details>` : renderJson(value);
  return gallery + json;
}
