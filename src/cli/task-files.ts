import { access } from "node:fs/promises";
import path from "node:path";

// Data files a task reads ("total sales in sales.csv"); a file the task writes ("save it as out.json") is not one.
const DATA_FILE = /(?<![\w./-])([\w./-]+\.(?:csv|tsv|json|jsonl))\b/gi;
const WRITTEN = /\b(?:write|save|store|export|create|to|into|as)\s+(?:it\s+|them\s+|a\s+|the\s+)?$/i;

/** The data files a task names that are not in the workspace: checked before the agent's first call. */
export async function missingTaskFiles(task: string, workspace: string): Promise<string[]> {
  const missing: string[] = [];
  // A file at a URL is fetched, not read from the workspace.
  const text = task.replace(/\bhttps?:\/\/\S+/gi, " ");
  for (const match of text.matchAll(DATA_FILE)) {
    const name = match[1]!;
    if (WRITTEN.test(text.slice(Math.max(0, match.index - 24), match.index))) continue;
    const found = await access(path.resolve(workspace, name)).then(
      () => true,
      () => false,
    );
    if (!found && !missing.includes(name)) missing.push(name);
  }
  return missing;
}
