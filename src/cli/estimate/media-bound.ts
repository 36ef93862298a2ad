import { MAX_IMAGE_TOKENS } from "../../catalog/tokens.js";
import { countPartTokens } from "../../gateway/prompt-tokens.js";
import { evaluateExpression, parseTemplate, referencesOf } from "../../workflow/expression/index.js";
import { loadMediaPart } from "../../workflow/media/load-media.js";
import { mediaSource, type MediaKind } from "../../workflow/media/media-source.js";
import type { EstimateContext } from "./estimate-context.js";

/** Prompt tokens a step's media adds, and the media whose size only the run knows. */
export interface MediaBound {
  readonly tokens: number;
  readonly unknown: readonly string[];
}

/**
 * Bounds the prompt tokens of a chat step's `images`, `audio` or `video`. An image never counts more
 * than MAX_IMAGE_TOKENS, so only the number of images matters; audio and video count by duration,
 * read from files (and data URIs) named in the file or by a known input. Nothing is downloaded.
 */
export async function boundMedia(value: unknown, kind: MediaKind, context: EstimateContext): Promise<MediaBound> {
  if (value === undefined) return { tokens: 0, unknown: [] };
  const items = knownValue(value, context);
  if (items === undefined) return { tokens: 0, unknown: [`${kind}: ${String(value)}`] };
  const list = (Array.isArray(items) ? items : [items]).filter(
    (item) => item !== undefined && item !== null && item !== "",
  );
  if (kind === "image") return { tokens: list.length * MAX_IMAGE_TOKENS, unknown: [] };
  let tokens = 0;
  const unknown: string[] = [];
  for (const item of list) {
    const known = knownValue(item, context);
    const source = typeof known === "string" ? mediaSource(known, { baseDir: context.workflow.baseDir }) : undefined;
    if (typeof known !== "string" || source === undefined || typeof source === "string" || source.type === "url") {
      unknown.push(`${kind}: ${String(item)}`);
      continue;
    }
    const part = await loadMediaPart(known, kind, {
      baseDir: context.workflow.baseDir,
      runDir: context.workflow.baseDir,
    });
    tokens += countPartTokens(part);
  }
  return { tokens, unknown };
}

// A literal, or a `${{ }}` that reads only known inputs; undefined when only the run knows it.
function knownValue(value: unknown, context: EstimateContext): unknown {
  if (typeof value !== "string") return Array.isArray(value) ? value : undefined;
  const template = parseTemplate(value);
  if (template.parts.every((part) => part.kind === "text")) return value;
  const single = template.single;
  if (single === undefined) return undefined;
  const readsOnlyInputs = referencesOf(single).every((reference) => {
    const name = reference.path[0];
    return reference.root === "inputs" && typeof name === "string" && !context.missingInputs.has(name);
  });
  if (!readsOnlyInputs) return undefined;
  try {
    return evaluateExpression(single, { inputs: context.inputs });
  } catch {
    return undefined;
  }
}
