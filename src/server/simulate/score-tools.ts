import type { Tool } from "../../gateway/wire.js";
import type { PromptFacts } from "./prompt-facts.js";
import { FUNCTION_WORDS } from "./stopwords.js";
import { fieldName, FIELD_KINDS } from "./suggest-values.js";

/** A tool scores at least this against a prompt to be called under `auto`. */
export const FIT_THRESHOLD = 3;

// Words that mean the same thing to a user and to a tool's author.
const SYNONYMS: ReadonlyArray<readonly string[]> = [
  [
    "weather",
    "forecast",
    "temperature",
    "rain",
    "sunny",
    "climate",
    "degrees",
    "warm",
    "cold",
    "hot",
    "humid",
    "wind",
    "snow",
    "celsius",
    "fahrenheit",
  ],
  [
    "calculate",
    "calculator",
    "compute",
    "math",
    "arithmetic",
    "evaluate",
    "sum",
    "multiply",
    "add",
    "divide",
    "subtract",
  ],
  ["search", "find", "lookup", "look", "google", "web", "query"],
  ["read", "open", "show", "contents", "cat", "view", "load"],
  ["write", "save", "store", "create", "record"],
  ["file", "path", "document", "notes"],
  ["time", "clock", "date", "now", "today"],
  ["translate", "translation", "translator"],
  ["email", "mail", "send", "message"],
  ["fetch", "download", "url", "page", "http", "website", "link"],
  ["stock", "price", "quote", "ticker", "share"],
  ["convert", "conversion", "exchange", "currency"],
  ["image", "picture", "photo", "draw", "poster", "illustration", "artwork", "cover", "logo", "banner", "visual"],
  ["music", "song", "jingle", "tune", "melody", "soundtrack", "compose"],
  ["list", "directory", "folder", "ls"],
];
const MAKER = /^(generate|create|make|compose|draw)_/;
const SYNONYM_OF = new Map<string, string>();
for (const group of SYNONYMS) for (const word of group) SYNONYM_OF.set(word, group[0]!);

/** Meaningful word stems of a text, synonyms folded together. */
export function conceptsOf(text: string): Set<string> {
  const words = fieldName(text).match(/[a-z][a-z0-9]*/g) ?? [];
  const concepts = new Set<string>();
  for (const word of words) {
    if (FUNCTION_WORDS.has(word) || word.length < 2) continue;
    const stem = word.replace(/(ing|ed|es|s)$/, "");
    concepts.add(SYNONYM_OF.get(word) ?? SYNONYM_OF.get(stem) ?? (stem.length >= 3 ? stem : word));
  }
  return concepts;
}

/** How well each tool fits the prompt: name words count 3, description words 1, shared words less. */
export function scoreTools(tools: readonly Tool[], facts: PromptFacts): number[] {
  const prompt = conceptsOf(facts.text);
  const names = tools.map((tool) => conceptsOf(tool.function.name));
  const descriptions = tools.map((tool) => conceptsOf(tool.function.description ?? ""));
  const share = (word: string, sets: Set<string>[]) => sets.filter((set) => set.has(word)).length || 1;
  return tools.map((tool, index) => {
    // A tool that needs a link is no use to a prompt that gives none: a model does not invent URLs.
    if (facts.urls.length === 0 && needsUrl(tool)) return 0;
    let score = 0;
    for (const word of names[index]!) if (prompt.has(word)) score += 3 / share(word, names);
    let fromDescription = 0;
    for (const word of descriptions[index]!) {
      if (prompt.has(word) && !names[index]!.has(word)) fromDescription += 1 / share(word, descriptions);
    }
    score += Math.min(3, fromDescription);
    // With no file or link to work on, a request for media is one to make it, not to edit or describe it.
    if (score > 0 && facts.paths.length === 0 && facts.urls.length === 0 && MAKER.test(tool.function.name)) score += 2;
    return score + factBonus(tool, facts, names[index]!, descriptions[index]!);
  });
}

// A prompt with an expression, a path or a link fits a tool built for one, whatever its name.
function factBonus(tool: Tool, facts: PromptFacts, name: Set<string>, description: Set<string>): number {
  const fields = Object.keys((tool.function.parameters?.properties ?? {}) as Record<string, unknown>).map(fieldName);
  const has = (pattern: RegExp) => fields.some((field) => pattern.test(field));
  let bonus = 0;
  if (
    facts.arithmetic.length > 0 &&
    (name.has("calculate") || description.has("calculate") || has(FIELD_KINDS.expression))
  )
    bonus += 3;
  if (facts.urls.length > 0 && has(FIELD_KINDS.url)) bonus += 2;
  if (facts.paths.length > 0 && has(FIELD_KINDS.path)) bonus += 1;
  if (enumValues(tool).some((value) => new RegExp(`\\b${value}\\b`, "i").test(facts.text))) bonus += 2;
  return bonus;
}

function needsUrl(tool: Tool): boolean {
  const required = tool.function.parameters?.required;
  return (
    Array.isArray(required) &&
    required.some((field) => typeof field === "string" && FIELD_KINDS.url.test(fieldName(field)))
  );
}

function enumValues(tool: Tool): string[] {
  const properties = Object.values((tool.function.parameters?.properties ?? {}) as Record<string, { enum?: unknown }>);
  return properties
    .flatMap((property) => (Array.isArray(property?.enum) ? property.enum : []))
    .map((value) => (typeof value === "string" ? value.replace(/[^\w-]/g, "") : ""))
    .filter((value) => value.length >= 3);
}

/** What a tool's calls are about, one per call, when the prompt names several of the same kind. */
export function callItems(
  tool: Tool,
  facts: PromptFacts,
): Array<{ kind: "entity" | "expression" | "path" | "url"; value: string }> {
  const fields = Object.keys((tool.function.parameters?.properties ?? {}) as Record<string, unknown>).map(fieldName);
  const has = (pattern: RegExp) => fields.some((field) => pattern.test(field));
  const arrays = Object.values((tool.function.parameters?.properties ?? {}) as Record<string, { type?: unknown }>).some(
    (property) => property?.type === "array",
  );
  // A tool that takes a list gets every item in one call.
  if (arrays) return [];
  if (has(FIELD_KINDS.expression) && facts.arithmetic.length > 1)
    return facts.arithmetic.map((entry) => ({ kind: "expression", value: entry.expression }));
  if (has(FIELD_KINDS.url) && facts.urls.length > 1) return facts.urls.map((value) => ({ kind: "url", value }));
  if (has(FIELD_KINDS.path) && facts.paths.length > 1) return facts.paths.map((value) => ({ kind: "path", value }));
  const entities = has(FIELD_KINDS.place) && facts.places.length > 0 ? facts.places : facts.entities;
  if ((has(FIELD_KINDS.place) || has(FIELD_KINDS.person)) && entities.length > 1) {
    return entities.map((value) => ({ kind: "entity", value }));
  }
  return [];
}
