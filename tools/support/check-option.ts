import { ConfigError } from "../../src/errors.js";

/** Returns `value` (or `fallback` when undefined) after checking it is a whole number >= 1. */
export function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const result = value ?? fallback;
  if (!Number.isSafeInteger(result) || result < 1) {
    throw new ConfigError(`Expected ${name} to be a whole number >= 1, got ${String(value)}.`);
  }
  return result;
}

/** Returns the workspace folder after checking one was given. */
export function requireWorkspace(workspace: string | undefined, toolName: string): string {
  if (typeof workspace !== "string" || workspace.trim() === "") {
    throw new ConfigError(
      `The ${toolName} tool needs a workspace folder. Pass { workspace: "path/to/folder" } when creating it.`,
      { code: "workspace_missing" },
    );
  }
  return workspace;
}
