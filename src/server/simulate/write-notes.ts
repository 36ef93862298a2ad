// Notes written from labelled lines ("Title: ...", "Summary: ...", "Topics: [...]"), as a model given them would.
const LABELLED = /^\s*(title|summary|topics|keywords|tags|notes|description)\s*:\s*(.+)$/gim;

/** Markdown notes (headline, paragraphs, bullets) when the prompt asks for notes and gives labelled facts; undefined otherwise. */
export function writeNotes(text: string): string | undefined {
  if (!/\b(notes|headline|write-?up|digest)\b/i.test(text)) return undefined;
  const fields = new Map<string, string>();
  LABELLED.lastIndex = 0;
  for (let match = LABELLED.exec(text); match !== null; match = LABELLED.exec(text))
    fields.set(match[1]!.toLowerCase(), match[2]!.trim());
  const title = fields.get("title");
  const summary = fields.get("summary") ?? fields.get("description");
  if (title === undefined || summary === undefined) return undefined;
  const topics = listOf(fields.get("topics") ?? fields.get("keywords") ?? fields.get("tags") ?? "");
  const sentences = summary.split(/(?<=[.!?])\s+/).filter((sentence) => sentence !== "");
  const half = Math.max(1, Math.ceil(sentences.length / 2));
  const paragraphs = [sentences.slice(0, half).join(" "), sentences.slice(half).join(" ")].filter(
    (paragraph) => paragraph !== "",
  );
  const bullets = topics.length > 0 ? ["", ...topics.map((topic) => `- ${topic}`)] : [];
  return [`# ${title}`, "", paragraphs.join("\n\n"), ...bullets].join("\n");
}

function listOf(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed)) return parsed.filter((item): item is string => typeof item === "string");
  } catch {
    // Not JSON: a comma-separated list.
  }
  return text.split(/\s*,\s*/).filter((item) => item !== "");
}
