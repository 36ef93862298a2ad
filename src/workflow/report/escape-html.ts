import { redactSecrets } from "../../errors.js";

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for HTML element content and quoted attribute values, so it can never become markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character]!);
}

/** Text as the report shows it: API keys redacted, then escaped (model and user text must never inject markup). */
export function htmlText(text: string): string {
  return escapeHtml(redactSecrets(text));
}
