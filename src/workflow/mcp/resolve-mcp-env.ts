import { ConfigError, registerSecret } from "../../errors.js";
import type { ValuePath } from "../expression/index.js";
import type { McpSection } from "./mcp-section-schema.js";

const ENV_REFERENCE = /\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const ANY_EXPRESSION = /\$\{\{[\s\S]*?\}\}/g;

/** Where an `mcp:` string reads something other than `${{ env.NAME }}`, with what it reads. */
export interface McpEnvProblem {
  readonly path: ValuePath;
  readonly message: string;
}

/** Checks that `${{ }}` inside `mcp:` only ever reads `env.NAME` (nothing else is known when servers start). */
export function checkMcpExpressions(section: McpSection): McpEnvProblem[] {
  const problems: McpEnvProblem[] = [];
  visitStrings(section, ["mcp"], (text, path) => {
    for (const match of text.matchAll(ANY_EXPRESSION)) {
      if (new RegExp(`^${ENV_REFERENCE.source}$`).test(match[0])) continue;
      problems.push({ path, message: `Inside mcp: only \${{ env.NAME }} is read (the environment), got ${match[0]}.` });
    }
  });
  return problems;
}

/**
 * The section with every `${{ env.NAME }}` replaced by the variable's value; each value read is
 * registered as a secret, so it is redacted wherever it might be printed. A variable that is not
 * set is a ConfigError naming it and where it is read.
 */
export function resolveMcpEnv(section: McpSection, env: NodeJS.ProcessEnv): McpSection {
  const resolved = mapStrings(section, ["mcp"], (text, path) =>
    text.replace(ENV_REFERENCE, (_, name: string) => {
      const value = env[name];
      if (value === undefined) {
        throw new ConfigError(
          `The environment variable ${name} is not set; ${path.join(".")} reads it. Set it before running.`,
          { code: "missing_env" },
        );
      }
      registerSecret(value);
      return value;
    }),
  );
  return resolved as McpSection;
}

function visitStrings(value: unknown, path: ValuePath, visit: (text: string, path: ValuePath) => void): void {
  mapStrings(value, path, (text, at) => {
    visit(text, at);
    return text;
  });
}

function mapStrings(value: unknown, path: ValuePath, map: (text: string, path: ValuePath) => string): unknown {
  if (typeof value === "string") return map(value, path);
  if (Array.isArray(value)) return value.map((item, index) => mapStrings(item, [...path, index], map));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, [...path, key], map)]));
  }
  return value;
}
