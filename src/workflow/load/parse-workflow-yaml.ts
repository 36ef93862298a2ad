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
 */
export function parseWorkflowYaml(text: string, file: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const document = parseYaml(text, lineCounter);
  const position = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
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
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
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
  // The document (every node, with its place in the text) is larger than the value and is needed
  // only to place an error, so it is not kept: the text is parsed again when an error is placed.
  let located: Document.Parsed | undefined;
  const locate = (path: ValuePath, options: { key?: string; offsetInString?: number } = {}): SourcePosition => {
    located ??= parseYaml(text);
    const found = findNode(
      located.contents,
      options.key === undefined ? path : [...path, options.key],
      options.key !== undefined,
    );
    if (found?.range == null) return { line: 1, column: 1 };
    return position(found.range[0] + stringOffset(found, options.offsetInString));
  };
  return { value, locate };
}

function parseYaml(text: string, lineCounter?: LineCounter): Document.Parsed {
  return parseDocument(text, {
    version: "1.2",
    schema: "core",
    uniqueKeys: true,
    merge: false,
    lineCounter,
    prettyErrors: false,
  });
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
