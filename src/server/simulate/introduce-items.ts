import { joinWords } from "./filler-text.js";
import { countValue } from "./prompt-counts.js";

const ASKS = /\b(introduction|intro|overview|description|preface|foreword)\b/i;
const NAMED = /['"“‘]([^'"”’]{2,60})['"”’]/;
const SENTENCE_COUNT = /\b(one|two|three|four|five|\d)[- ]sentences?\b/i;
// Item fields that say what an item is, best first.
const LABELS = ["caption", "title", "name", "summary", "description", "label", "text"];
const NUMBERS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

/**
 * An introduction to a collection the prompt pastes in as JSON ("an introduction to the catalogue 'Spring shoot' with
 * these entries: [...]"), built from the items' captions or titles; undefined when the prompt is not such a request.
 */
export function introduceItems(text: string): string | undefined {
  if (!ASKS.test(text)) return undefined;
  const pasted = pastedItems(text);
  if (pasted === undefined) return undefined;
  const { items, at } = pasted;
  if (items.length === 0) return undefined;
  const labels = items.map(labelOf).filter((label): label is string => label !== undefined);
  if (labels.length === 0) return undefined;
  const name = NAMED.exec(text.slice(0, at))?.[1];
  const count = items.length < NUMBERS.length ? NUMBERS[items.length]! : String(items.length);
  const noun = /\b(photo|picture|image)s?\b/i.test(text) ? "photo" : "entry";
  const what = `${count} ${items.length === 1 ? noun : noun === "photo" ? "photos" : "entries"}`;
  const shown = labels.slice(0, 4).map((label) => lowerFirst(label.replace(/[.!?]+$/, "")));
  if (labels.length > 4) shown.push(`${labels.length - 4} more`);
  const opening = `${name === undefined ? "This collection" : `'${name}'`} gathers ${what}: ${listed(shown)}.`;
  const sentences = [opening, closing(labels)];
  const wanted = SENTENCE_COUNT.exec(text);
  return sentences.slice(0, wanted === null ? 2 : Math.max(1, countValue(wanted[1]!))).join(" ");
}

// The first JSON array in the text, or the array inside its first JSON object, and where the JSON starts.
function pastedItems(text: string): { items: unknown[]; at: number } | undefined {
  for (const open of ["[", "{"]) {
    const start = text.indexOf(open);
    if (start < 0) continue;
    const end = text.lastIndexOf(open === "[" ? "]" : "}");
    try {
      const parsed: unknown = JSON.parse(text.slice(start, end + 1));
      if (Array.isArray(parsed)) return { items: parsed, at: start };
      const inner = Object.values(parsed as object).find(Array.isArray);
      if (inner !== undefined) return { items: inner, at: start };
    } catch {
      // Not JSON from this bracket: try the other kind.
    }
  }
  return undefined;
}

// An item's caption or title, looked for one level down too ({ file, entry: { caption } }).
function labelOf(item: unknown): string | undefined {
  if (typeof item === "string") return item;
  if (typeof item !== "object" || item === null) return undefined;
  const record = item as Record<string, unknown>;
  for (const key of LABELS) if (typeof record[key] === "string" && record[key] !== "") return record[key] as string;
  for (const value of Object.values(record)) {
    const nested = typeof value === "object" ? labelOf(value) : undefined;
    if (nested !== undefined) return nested;
  }
  return undefined;
}

// "a, b and c", or "a; b; and c" when the items have commas of their own.
function listed(parts: readonly string[]): string {
  if (!parts.some((part) => part.includes(","))) return joinWords(parts);
  return parts.length < 2 ? parts.join("") : `${parts.slice(0, -1).join("; ")}; and ${parts.at(-1)}`;
}

function closing(labels: readonly string[]): string {
  const distinct = new Set(labels.map((label) => label.toLowerCase())).size;
  return distinct === labels.length
    ? "Each one has its own mood, so browse them side by side."
    : "Several share a look, which makes the set hang together.";
}

// A caption that is a phrase ("Soft landscape shot") reads on mid-sentence in lower case; a title ("Dune") keeps it.
function lowerFirst(text: string): string {
  const phrase = text.split(/\s+/).length >= 3 && /^\p{Lu}\p{Ll}/u.test(text);
  return phrase ? text[0]!.toLowerCase() + text.slice(1) : text;
}
