import { resolve } from "node:path";
import { UsageError } from "./command.js";

/** The workflow file a command names, resolved against the working folder. `-` is refused with the fix:
 * a run keeps its workflow file's folder (relative paths start there) and copy, which stdin has not. */
export function workflowPath(cwd: string, given: string): string {
  if (given === "-")
    throw new UsageError(
      "A workflow is read from a file, not from stdin (-). Save it first (e.g. cat > flow.yaml) and name the file.",
    );
  return resolve(cwd, given);
}
