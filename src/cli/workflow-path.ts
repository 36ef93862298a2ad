import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../errors.js";
import { UsageError } from "./command.js";
import { packageRoot } from "./package-root.js";

/** The workflow file a command names, resolved against the working folder. `-` is refused with the fix:
 * a run keeps its workflow file's folder (relative paths start there) and copy, which stdin has not.
 * A file that is not there, named like one of svc-flow's shipped workflows, is refused with where those are. */
export function workflowPath(cwd: string, given: string): string {
  if (given === "-")
    throw new UsageError(
      "A workflow is read from a file, not from stdin (-). Save it first (e.g. cat > flow.yaml) and name the file.",
    );
  const file = path.resolve(cwd, given);
  if (existsSync(file)) return file;
  const hint = shippedWorkflowHint(cwd, given);
  if (hint === undefined) return file;
  throw new ConfigError(`Cannot read the workflow ${given}: there is no such file. ${hint}`, {
    code: "invalid_workflow",
  });
}

// A project that installed svc-flow has its examples under node_modules/svc-flow/workflows/, not ./workflows/,
// where the README's commands (written for a clone) look.
function shippedWorkflowHint(cwd: string, given: string): string | undefined {
  const root = packageRoot()?.root;
  if (root === undefined) return undefined;
  const folder = path.join(root, "workflows");
  let shipped: string[];
  try {
    shipped = readdirSync(folder).filter((name) => /\.(ya?ml|json)$/.test(name));
  } catch {
    return undefined;
  }
  const shown = (file: string) => {
    const relative = path.relative(cwd, file);
    return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
  };
  const name = path.basename(given);
  if (shipped.includes(name)) return `svc-flow's example of that name is ${shown(path.join(folder, name))}.`;
  if (/^(\.\/)?workflows[\\/]/.test(given)) return `svc-flow's example workflows are in ${shown(folder)}${path.sep}.`;
  return undefined;
}
