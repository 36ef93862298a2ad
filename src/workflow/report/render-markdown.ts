import MarkdownIt from "markdown-it";
import { redactSecrets } from "../../errors.js";

// html: false escapes any HTML in the text instead of passing it through; markdown-it's own link
// check refuses javascript:, vbscript:, file: and data: links. Images are off: a model's text never
// loads anything into the page (the report's images are the run's artifacts, shown once each).
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false }).disable(["image"]);

const defaultLink =
  markdown.renderer.rules.link_open ??
  ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
markdown.renderer.rules.link_open = (tokens, index, options, env, self) => {
  tokens[index]!.attrSet("rel", "noopener noreferrer nofollow");
  return defaultLink(tokens, index, options, env, self);
};

/** Model text (Markdown) as safe HTML: API keys redacted, raw HTML escaped, no images, links that cannot run script. */
export function renderMarkdown(text: string): string {
  return `<div class="markdown">${markdown.render(redactSecrets(text))}</div>`;
}

/** Whether a string reads as prose worth rendering as Markdown rather than as a short value. */
export function isProse(text: string): boolean {
  return text.includes("\n") || text.length > 120 || /(^|\s)(\*\*|__|`)\S/.test(text);
}
