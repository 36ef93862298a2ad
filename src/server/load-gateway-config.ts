import { readFile } from "node:fs/promises";
import { LineCounter, parseDocument, type Document } from "yaml";
import type { z } from "zod";
import { ConfigError, registerSecret } from "../errors.js";
import { gatewayConfigSchema, type GatewayConfig } from "./config.js";

/** Validates a config object; a ConfigError naming every bad path otherwise. */
export function parseGatewayConfig(value: unknown, source = "gateway config"): GatewayConfig {
  const result = gatewayConfigSchema.safeParse(value ?? {});
  if (result.success) {
    for (const entry of result.data.keys ?? []) registerSecret(entry.key);
    return result.data;
  }
  const problems = result.error.issues.map((issue) => `${source}: ${formatPath(issue.path)}: ${issue.message}`);
  throw new ConfigError(`Invalid gateway config.\n${problems.join("\n")}`);
}

/** Reads a YAML or JSON config file; errors name the file, the line and the path. */
export async function loadGatewayConfig(file: string): Promise<GatewayConfig> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === "ENOENT" ? "there is no such file" : code === "EISDIR" ? "it is a folder" : (error as Error).message;
    throw new ConfigError(`Cannot read gateway config ${file}: ${reason}. Check the path.`, { cause: error });
  }
  const lineCounter = new LineCounter();
  // JSON is YAML 1.2, so one parser reads both; 1.2 also keeps `on:`/`yes:` as strings.
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  if (document.errors.length > 0) {
    const problems = document.errors.map((error) => {
      const line = lineCounter.linePos(error.pos[0]).line;
      return `${file}${line ? `:${line}` : ""}: ${error.message.split("\n")[0]}`;
    });
    throw new ConfigError(`Invalid gateway config file.\n${problems.join("\n")}`);
  }
  const result = gatewayConfigSchema.safeParse(document.toJS() ?? {});
  if (result.success) {
    for (const entry of result.data.keys ?? []) registerSecret(entry.key);
    return result.data;
  }
  const problems = result.error.issues.map((issue) => {
    const line = lineOf(document, lineCounter, issue);
    return `${file}${line ? `:${line}` : ""}: ${formatPath(issue.path)}: ${issue.message}`;
  });
  throw new ConfigError(`Invalid gateway config file.\n${problems.join("\n")}`);
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(top level)";
  return path
    .map((part, index) => (typeof part === "number" ? `[${part}]` : `${index === 0 ? "" : "."}${String(part)}`))
    .join("");
}

// The line of the deepest node of the issue's path that exists in the file (a missing field is
// reported at its parent).
function lineOf(document: Document, lineCounter: LineCounter, issue: z.core.$ZodIssue): number | undefined {
  const path = issue.path.filter((part): part is string | number => typeof part !== "symbol");
  for (let length = path.length; length >= 0; length--) {
    const node = document.getIn(path.slice(0, length), true) as { range?: [number, number, number] } | undefined;
    if (node && typeof node === "object" && node.range) return lineCounter.linePos(node.range[0]).line;
  }
  return undefined;
}
