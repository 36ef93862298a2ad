import { readFile } from "node:fs/promises";
import { LineCounter, isMap, isNode, isScalar, parseDocument } from "yaml";
import { findModel, suggestModels } from "../catalog/models.js";
import { priceOverridesSchema, type PriceOverrides } from "../catalog/prices.js";
import { ConfigError } from "../errors.js";

/** Reads a price file (YAML or JSON, the shape of `priceOverridesSchema`); errors name file, line and path. */
export async function loadPriceFile(path: string, options: { signal?: AbortSignal } = {}): Promise<PriceOverrides> {
  let text: string;
  try {
    text = await readFile(path, { encoding: "utf8", signal: options.signal });
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(`Cannot read price file ${path} (${reason}). Check the path.`, { cause: error });
  }
  return parsePriceText(text, path);
}

/** Parses price file text; `name` is used in error messages (a path, or a label). */
export function parsePriceText(text: string, name: string): PriceOverrides {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  const [syntaxError] = document.errors;
  if (syntaxError) {
    const line = lineCounter.linePos(syntaxError.pos[0]).line;
    throw new ConfigError(`${name}:${line}: ${syntaxError.message.split("\n")[0]}. Fix the YAML/JSON syntax.`);
  }
  // The line of the deepest key on the path that exists, so an error points at the key it names.
  const lineOf = (path: readonly PropertyKey[]): number => {
    let line = 1;
    let node: unknown = document.contents;
    for (const segment of path) {
      if (!isMap(node)) break;
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
      if (!pair) break;
      if (isNode(pair.key) && pair.key.range) line = lineCounter.linePos(pair.key.range[0]).line;
      node = pair.value;
    }
    return line;
  };
  const parsed = priceOverridesSchema.safeParse(document.toJS() ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // An unknown key is reported on its parent; point at the key itself.
    const issuePath = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]!] : issue.path;
    const path = issuePath.map(String).join(".");
    throw new ConfigError(
      `${name}:${lineOf(issuePath)}: ${path}: ${issue.message}. ` +
        "A price file has `chat: {MODEL: {input, output}}` (yuan per 1K tokens), `image: {MODEL: yuan}` " +
        "and `music: {OPERATION: yuan}`.",
    );
  }
  checkModels(parsed.data, name, lineOf);
  return parsed.data;
}

// A mistyped model id would leave the real model unpriced without a word, so ids must be the
// catalogue's, and each price must sit where that model is billed (tokens or images).
function checkModels(prices: PriceOverrides, name: string, lineOf: (path: readonly PropertyKey[]) => number): void {
  const check = (section: "chat" | "image", id: string): void => {
    const where = `${name}:${lineOf([section, id])}: ${section}.${id}`;
    const info = findModel(id);
    if (!info) {
      const suggestions = suggestModels(id)
        .map((suggestion) => `"${suggestion}"`)
        .join(", ");
      throw new ConfigError(`${where}: unknown model "${id}". Did you mean ${suggestions}?`);
    }
    if (info.id !== id) {
      throw new ConfigError(`${where}: "${id}" is a dated version; price the catalogue id "${info.id}" instead.`);
    }
    const perImage = info.capabilities.imageGeneration;
    if (section === "chat" && perImage) {
      throw new ConfigError(`${where}: ${id} is billed per image; put its price under image: (yuan per image).`);
    }
    if (section === "image" && !perImage) {
      throw new ConfigError(`${where}: ${id} is billed per token; put its price under chat: {input, output}.`);
    }
  };
  for (const id of Object.keys(prices.chat ?? {})) check("chat", id);
  for (const id of Object.keys(prices.image ?? {})) check("image", id);
}
