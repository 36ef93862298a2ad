import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  Scalar,
  type Document,
  type Node,
} from "yaml";
import { CORE_SCHEMA, load } from "js-yaml";
import type { ValuePath } from "../expression/index.js";
import { WorkflowError } from "../workflow-error.js";

/** A 1-based position in the file. */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

/** A parsed workflow file: its plain value, and a way back from a value path to a place in the text. */
export interface ParsedYaml {
  readonly value: unknown;
  /** Where the value at `path` is; with `key`, where that key of the mapping at `path` is written. */
  locate(path: ValuePath, options?: { key?: string; offsetInString?: number }): SourcePosition;
}

/**
 * Parses YAML 1.2 (core schema: `on:` and `yes:` stay strings, no `<<` merges) with positions.
 * Duplicate keys, syntax errors and more than one document are errors naming line and column.
 *
 * The value is read by js-yaml, which builds it straight from the text, about six times faster than
 * the yaml package builds its document (a 20,000-step file: about 0.27 s against 1.6 s); positions
 * are only needed to place an error, and come from the yaml package's document then. A file js-yaml
 * does not take as it is (any error, an empty file, any alias: the yaml package bounds how far
 * aliases expand) is read by the yaml package, whose errors name their place.
 */
export function parseWorkflowYaml(text: string, file: string): ParsedYaml {
  const quick = quickValue(text);
  const value = quick === undefined ? documentValue(parseYaml(text), file) : quick.value;
  // The document (every node, with its place in the text) is larger than the value and is needed
  // only to place an error, so it is not kept: the text is parsed again when an error is placed.
  let located: Located | undefined;
  const locate = (path: ValuePath, options: { key?: string; offsetInString?: number } = {}): SourcePosition => {
    located ??= parseYaml(text);
    const found = findNode(
      located.document.contents,
      options.key === undefined ? path : [...path, options.key],
      options.key !== undefined,
    );
    if (found?.range == null) return { line: 1, column: 1 };
    return located.position(found.range[0] + stringOffset(found, options.offsetInString));
  };
  return { value, locate };
}

/** The file's value as js-yaml reads it, or undefined when it does not take the file as it is. */
function quickValue(text: string): { readonly value: unknown } | undefined {
  try {
    return { value: load(text, { schema: CORE_SCHEMA, maxAliases: 0 }) };
  } catch {
    return undefined;
  }
}

/** The value of the yaml package's document; its errors, warnings and an alias bomb are thrown, placed. */
function documentValue({ document, position }: Located, file: string): unknown {
  const problems = [...document.errors, ...document.warnings];
  if (problems.length > 0) {
    throw new WorkflowError(
      problems.map((problem) => ({
        file,
        ...position(problem.pos[0]),
        path: [],
        message: yamlMessage(problem.message),
      })),
    );
  }
  try {
    return document.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (error) {
    // The yaml package refuses an alias bomb (aliases of aliases that expand exponentially) with a ReferenceError.
    if (!(error instanceof ReferenceError)) throw error;
    throw new WorkflowError([
      {
        file,
        line: 0,
        column: 0,
        path: [],
        message: `The file's aliases (*name) expand too far (${error.message}). Write the values out, or use fewer aliases.`,
      },
    ]);
  }
}

/** The yaml package's document of a file, and the place of an offset in its text. */
interface Located {
  readonly document: Document.Parsed;
  position(offset: number): SourcePosition;
}

function parseYaml(text: string): Located {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, {
    version: "1.2",
    schema: "core",
    uniqueKeys: true,
    merge: false,
    lineCounter,
    prettyErrors: false,
  });
  return {
    document,
    position(offset) {
      const { line, col } = lineCounter.linePos(offset);
      return { line, column: col };
    },
  };
}

// The yaml package appends a code frame after "at line X, column Y:"; our issue carries the position.
function yamlMessage(message: string): string {
  return (
    message.replace(/ at line \d+, column \d+:[\s\S]*$/, "").trim() +
    (message.includes("Map keys must be unique") ? " (a key is written twice)" : "")
  );
}

// Follows the path through mappings and sequences, stopping at the deepest node that exists.
function findNode(root: unknown, path: ValuePath, wantKey: boolean): Node | undefined {
  let node = root as Node | undefined;
  for (const [index, segment] of path.entries()) {
    if (node === undefined || isAlias(node)) return node;
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && keyText(item.key) === String(segment));
      if (pair === undefined) return node;
      if (wantKey && index === path.length - 1) return pair.key as Node;
      node = (pair.value ?? pair.key) as Node | undefined;
    } else if (isSeq(node) && typeof segment === "number") {
      const item = node.items[segment] as Node | undefined;
      if (item === undefined) return node;
      node = item;
    } else {
      return node;
    }
  }
  return node;
}

function keyText(key: unknown): string | undefined {
  return isScalar(key) ? String(key.value) : undefined;
}

// Points inside a one-line string at the offending column of an expression; other scalars point at their start.
function stringOffset(node: Node, offsetInString: number | undefined): number {
  if (offsetInString === undefined || !isScalar(node) || typeof node.value !== "string") return 0;
  if (node.type === Scalar.PLAIN && !node.value.includes("\n")) return offsetInString;
  if (
    (node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE) &&
    !node.value.includes("\n") &&
    !/["'\\]/.test(node.value)
  ) {
    return offsetInString + 1;
  }
  return 0;
}
