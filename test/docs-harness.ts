import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/** Fence languages a doc block may use: the first two are run, the rest are shown only. */
export const RUN_LANGUAGES = ["bash", "ts"] as const;
export const SHOWN_LANGUAGES = ["text", "yaml", "json"] as const;

/** One fenced block of a Markdown file. */
export interface DocBlock {
  /** The file, relative to the repository root. */
  readonly file: string;
  /** Line of the opening fence, 1-based. */
  readonly line: number;
  /** The fence's language tag ("" when it has none). */
  readonly language: string;
  /** The block's text, its fence's indentation removed. */
  readonly code: string;
  /** The reason of a `<!-- doc-test: skip REASON -->` line right before the fence. */
  readonly skip?: string;
  /** A marker line before the fence that is not a valid skip marker. */
  readonly badMarker?: string;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/;
const MARKER = /^\s*<!--\s*doc-test:(.*?)-->\s*$/;

/** Splits Markdown into its fenced blocks, with the skip marker of each. */
export function parseDocBlocks(file: string, markdown: string): DocBlock[] {
  const lines = markdown.split("\n");
  const blocks: DocBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index] ?? "");
    if (!open) continue;
    const [, indent = "", fence = "", language = ""] = open;
    const body: string[] = [];
    let end = index + 1;
    for (; end < lines.length; end++) {
      const text = lines[end] ?? "";
      if (text.trim().startsWith(fence) && text.trim().replace(/[`~]/g, "") === "") break;
      body.push(text.startsWith(indent) ? text.slice(indent.length) : text.trimStart());
    }
    const marker = MARKER.exec(lines[index - 1] ?? "");
    const directive = marker?.[1]?.trim();
    const skip = directive?.startsWith("skip ") ? directive.slice(5).trim() : undefined;
    blocks.push({
      file,
      line: index + 1,
      language,
      code: `${body.join("\n")}\n`,
      ...(skip ? { skip } : {}),
      ...(directive !== undefined && !skip ? { badMarker: lines[index - 1]?.trim() ?? "" } : {}),
    });
    index = end;
  }
  return blocks;
}

/** The Markdown files whose blocks are tested: README.md and docs/*.md. */
export async function docFiles(root: string): Promise<string[]> {
  const docs = existsSync(path.join(root, "docs")) ? await readdir(path.join(root, "docs")) : [];
  return [
    "README.md",
    ...docs
      .filter((name) => name.endsWith(".md"))
      .sort()
      .map((name) => `docs/${name}`),
  ];
}

/** Every fenced block of README.md and docs/*.md. */
export async function findDocBlocks(root: string): Promise<DocBlock[]> {
  const blocks: DocBlock[] = [];
  for (const file of await docFiles(root))
    blocks.push(...parseDocBlocks(file, await readFile(path.join(root, file), "utf8")));
  return blocks;
}

/**
 * A folder that looks like a project which installed svc-flow: node_modules links to the
 * repository's dependencies and to the package itself (so `import "svc-flow"` goes through its
 * `exports`, and `svc-flow` / `npx svc-flow` run its bin). Each block runs in a fresh subfolder
 * holding a link to the repository's `workflows/`, so nothing it writes lands in the checkout.
 */
export class DocSandbox {
  readonly #root: string;
  readonly dir: string;
  #blocks = 0;

  private constructor(root: string, dir: string) {
    this.#root = root;
    this.dir = dir;
  }

  /** Creates the sandbox for the repository at `root`. */
  static async create(root: string): Promise<DocSandbox> {
    const dir = await mkdtemp(path.join(tmpdir(), "svc-flow-docs-"));
    const modules = path.join(dir, "node_modules");
    await mkdir(path.join(modules, ".bin"), { recursive: true });
    for (const name of await readdir(path.join(root, "node_modules"))) {
      if (name === ".bin" || name.startsWith(".")) continue;
      await symlink(path.join(root, "node_modules", name), path.join(modules, name));
    }
    await symlink(root, path.join(modules, "svc-flow"));
    const manifest = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as {
      bin?: Record<string, string>;
    };
    for (const [name, target] of Object.entries(manifest.bin ?? {})) {
      const shim = path.join(modules, ".bin", name);
      await writeFile(shim, `#!/bin/sh\nexec "${process.execPath}" "${path.join(root, target)}" "$@"\n`);
      await chmod(shim, 0o755);
    }
    const project = { name: "docs-sandbox", private: true, type: "module", dependencies: { "svc-flow": "*" } };
    await writeFile(path.join(dir, "package.json"), `${JSON.stringify(project, null, 2)}\n`);
    return new DocSandbox(root, dir);
  }

  /** A fresh working folder for one block, with `workflows/` linked in. */
  async blockDir(): Promise<string> {
    const dir = path.join(this.dir, `block-${++this.#blocks}`);
    await mkdir(dir);
    await symlink(path.join(this.#root, "workflows"), path.join(dir, "workflows"));
    return dir;
  }

  /** The environment blocks run in: no gateway settings (so the embedded local gateway is used), the sandbox's bins first on PATH. */
  env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (name.startsWith("SVC_") || name.startsWith("VITEST") || name === "NODE_OPTIONS" || name === "FORCE_COLOR")
        continue;
      env[name] = value;
    }
    env.PATH = `${path.join(this.dir, "node_modules", ".bin")}${path.delimiter}${process.env.PATH ?? ""}`;
    env.NO_COLOR = "1";
    return env;
  }

  /** Removes the sandbox. */
  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** What running one block gave. */
export interface BlockRun {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a block in `cwd`: bash blocks with `bash -e -o pipefail`, ts blocks as an .mts file under `node --import tsx`. */
export async function runDocBlock(
  block: DocBlock,
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<BlockRun> {
  if (block.language === "bash") return runProcess("bash", ["-e", "-o", "pipefail", "-c", block.code], options);
  const file = path.join(options.cwd, "snippet.mts");
  await writeFile(file, block.code);
  return runProcess(process.execPath, ["--import", "tsx", file], options);
}

function runProcess(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<BlockRun> {
  return new Promise((resolve, reject) => {
    // A process group of its own, so a timeout ends the block's children too (a gateway left running, say).
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // Whatever the block left behind in its group (a background server still holding the output
    // pipes) ends with it, so "close" follows.
    child.on("exit", () => killGroup(child.pid));
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer);
      resolve({
        exitCode,
        signal,
        timedOut,
        stdout: Buffer.concat(stdout).toString(),
        stderr: Buffer.concat(stderr).toString(),
      });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // The group is already gone.
  }
}

/** The files package.json's `exports` and `bin` name that do not exist (dist/ not built yet). */
export async function missingPackageFiles(root: string): Promise<string[]> {
  const manifest = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as {
    exports?: unknown;
    bin?: Record<string, string>;
  };
  const targets: string[] = [...Object.values(manifest.bin ?? {})];
  const collect = (value: unknown): void => {
    if (typeof value === "string") targets.push(value);
    else if (value && typeof value === "object") for (const inner of Object.values(value)) collect(inner);
  };
  collect(manifest.exports);
  return targets.filter((target) => !target.includes("*") && !existsSync(path.join(root, target)));
}

/** The last lines of a process's output, for a failure message. */
export function tail(text: string, lines = 40): string {
  return text.split("\n").slice(-lines).join("\n");
}

/** One relative link of a Markdown file, outside code blocks. */
export interface DocLink {
  readonly file: string;
  readonly line: number;
  readonly target: string;
}

/** The relative links (`[text](target)`) of a Markdown file; web and mail links are left out. */
export function parseDocLinks(file: string, markdown: string): DocLink[] {
  const links: DocLink[] = [];
  let fence: string | undefined;
  markdown.split("\n").forEach((text, index) => {
    const open = FENCE.exec(text);
    if (open) {
      if (fence === undefined) fence = open[2];
      else if (text.trim().startsWith(fence)) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    for (const match of text.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? "";
      if (!/^[a-z]+:/i.test(target)) links.push({ file, line: index + 1, target });
    }
  });
  return links;
}

/** The anchors of a Markdown file's headings, as GitHub makes them ("Run, resume" -> "run-resume"). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fence: string | undefined;
  for (const text of markdown.split("\n")) {
    const open = FENCE.exec(text);
    if (open) {
      if (fence === undefined) fence = open[2];
      else if (text.trim().startsWith(fence)) fence = undefined;
      continue;
    }
    const heading = fence === undefined ? /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text) : null;
    if (!heading) continue;
    const base = (heading[1] ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    let anchor = base;
    for (let count = 1; anchors.has(anchor); count++) anchor = `${base}-${count}`;
    anchors.add(anchor);
  }
  return anchors;
}

/**
 * Type-checks ts blocks as a user's strict project would (module nodenext, types from the package's
 * exports), each block a module of its own named `<doc>-<line>.mts`. Returns tsc's output; "" when clean.
 */
export async function typeCheckBlocks(
  blocks: readonly DocBlock[],
  options: { root: string; dir: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<string> {
  await mkdir(options.dir, { recursive: true });
  for (const block of blocks) {
    await writeFile(path.join(options.dir, `${blockModuleName(block)}.mts`), block.code);
  }
  const compilerOptions = {
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    lib: ["es2023"],
    types: ["node"],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  };
  await writeFile(path.join(options.dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["*.mts"] }));
  const tsc = path.join(options.root, "node_modules", "typescript", "bin", "tsc");
  const run = await runProcess(process.execPath, [tsc, "-p", options.dir], { ...options, cwd: options.dir });
  return run.exitCode === 0 ? "" : `${run.stdout}${run.stderr}` || `tsc exited ${run.exitCode ?? run.signal}`;
}

/** A block's module name for the type check: `docs/chat-model.md:51` -> `chat-model-51`. */
export function blockModuleName(block: DocBlock): string {
  return `${path.basename(block.file, ".md")}-${block.line}`;
}
