import { lstat, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { ConfigError, ToolInputError } from "../../src/errors.js";
import { errorCode } from "./error-code.js";

/** A path the model asked for, checked to lie inside the workspace. */
export interface WorkspacePath {
  /** The real location on disk: symlinks resolved as far as the path exists. */
  readonly absolute: string;
  /** The requested path relative to the workspace, with "/" separators ("." for the workspace itself). */
  readonly relative: string;
  /** Whether something exists at the path. */
  readonly exists: boolean;
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

function outside(requested: string, how: string): ToolInputError {
  return new ToolInputError(
    `Path "${requested}" is refused: ${how}. Use a path relative to the workspace folder, ` +
      `such as "notes/summary.txt"; call list_files to see what is there.`,
    { code: "path_outside_workspace" },
  );
}

/** Resolves the workspace folder itself (through symlinks); a missing folder is a ConfigError. */
export async function resolveWorkspaceRoot(workspace: string): Promise<string> {
  let root: string;
  try {
    root = await realpath(workspace);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
    throw new ConfigError(`The workspace folder ${workspace} does not exist. Create it or pass another workspace.`, {
      code: "workspace_missing",
      cause: error,
    });
  }
  if (!(await stat(root)).isDirectory()) {
    throw new ConfigError(`The workspace ${workspace} is not a folder. Pass a folder as the workspace.`, {
      code: "workspace_missing",
    });
  }
  return root;
}

// realpath of the nearest existing ancestor, so a symlink anywhere on the way is resolved and checked.
async function resolveExisting(candidate: string, requested: string): Promise<{ real: string; exists: boolean }> {
  const missing: string[] = [];
  let current = candidate;
  for (;;) {
    try {
      const real = await realpath(current);
      return { real: path.join(real, ...missing.reverse()), exists: missing.length === 0 };
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOENT") {
        // lstat finds what realpath cannot follow: a symlink to nowhere could later point anywhere.
        const link = await lstat(current).catch(() => undefined);
        if (link !== undefined) throw outside(requested, "it goes through a symbolic link whose target does not exist");
        missing.push(path.basename(current));
        current = path.dirname(current);
        continue;
      }
      if (code === "ELOOP") throw outside(requested, "it goes through a loop of symbolic links");
      if (code === "ENOTDIR") {
        throw new ToolInputError(
          `Path "${requested}" uses a file as if it were a folder. Check the path with list_files.`,
          { code: "not_a_folder" },
        );
      }
      throw error;
    }
  }
}

/** Resolves a path the model gave against the workspace, refusing anything that ends up outside it. */
export async function resolveWorkspacePath(workspace: string, requested: string): Promise<WorkspacePath> {
  if (requested.includes("\0")) {
    throw new ToolInputError(`Path "${requested.replaceAll("\0", "\\0")}" contains a NUL character. Remove it.`, {
      code: "invalid_path",
    });
  }
  const root = await resolveWorkspaceRoot(workspace);
  let candidate: string;
  if (path.isAbsolute(requested)) {
    const given = path.resolve(requested);
    const lexicalRoot = path.resolve(workspace);
    // An absolute path inside the workspace is fine, whether spelled through the symlinked or the real root.
    if (isInside(lexicalRoot, given)) candidate = path.join(root, path.relative(lexicalRoot, given));
    else if (isInside(root, given)) candidate = given;
    else throw outside(requested, "it is an absolute path outside the workspace");
  } else {
    candidate = path.resolve(root, requested);
    if (!isInside(root, candidate)) throw outside(requested, 'it climbs out of the workspace with ".."');
  }
  const { real, exists } = await resolveExisting(candidate, requested);
  if (!isInside(root, real)) throw outside(requested, "it leads outside the workspace through a symbolic link");
  const relative = path.relative(root, candidate).split(path.sep).join("/");
  return { absolute: real, relative: relative === "" ? "." : relative, exists };
}
