// Runs every code block of README.md and docs/*.md, so the docs cannot drift from the code.
//
// Rules (the docs' writers rely on them):
// - ```bash and ```ts blocks run; ```text, ```yaml and ```json are shown only. Any other fence
//   language (sh, console, js, none) fails the language test, so no command escapes the run.
// - A line `<!-- doc-test: skip REASON -->` right before a fence skips that block; the reason is
//   required (e.g. "needs a real key", "runs the whole test suite").
// - Each block runs on its own, with a fresh temporary folder as its working directory. That folder
//   sits in a sandbox project that installed svc-flow (node_modules links to this checkout), and it
//   holds a link to the repository's `workflows/`. So `svc-flow ...` and `npx svc-flow ...` run the
//   package's bin, `import ... from "svc-flow"` goes through package.json `exports`, paths such as
//   `workflows/launch-kit.yaml` work as in the README, and what a block writes (runs/, images)
//   stays out of the checkout. Blocks that need the checkout as cwd (npm install, npm test,
//   npm run bench) are skipped with that reason.
// - bash blocks run with `bash -e -o pipefail`; ts blocks are written to an .mts file and run with
//   `node --import tsx`. Each must exit 0.
// - ts blocks are also type-checked together (strict, module nodenext, svc-flow's own .d.ts), each
//   as a module named <doc>-<line>.mts.
// - SVC_BASE_URL and SVC_API_KEY are removed from the environment, so blocks use the embedded local
//   gateway; a block that needs a real key is skip-marked.
// - A block that runs longer than BLOCK_TIMEOUT_MS fails, and its whole process group is killed:
//   snippets must close the gateways and clients they start. Background processes a bash block
//   leaves are killed when its shell exits. Two blocks run at a time, each in its own folder.
// - ```yaml blocks that are a whole workflow (top-level `version:` and `steps:`) are loaded with
//   loadWorkflow, media paths relative to workflows/.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import PQueue from "p-queue";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadWorkflow } from "../src/index.js";
import {
  DocSandbox,
  RUN_LANGUAGES,
  SHOWN_LANGUAGES,
  docFiles,
  findDocBlocks,
  headingAnchors,
  missingPackageFiles,
  parseDocLinks,
  runDocBlock,
  tail,
  typeCheckBlocks,
  type DocBlock,
} from "./docs-harness.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BLOCK_TIMEOUT_MS = 120_000;
const BLOCKS_AT_ONCE = 2;

const blocks = await findDocBlocks(ROOT);
const runnable = blocks.filter((block) => (RUN_LANGUAGES as readonly string[]).includes(block.language));
const workflows = blocks.filter((block) => block.language === "yaml" && isWholeWorkflow(block.code));
const where = (block: DocBlock) => `${block.file}:${block.line}`;

function isWholeWorkflow(code: string): boolean {
  try {
    const value = parseYaml(code) as unknown;
    return typeof value === "object" && value !== null && "version" in value && "steps" in value;
  } catch {
    return false;
  }
}

function gitStatus(): string[] {
  const output = execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return output.split("\n").filter(Boolean);
}

describe("doc blocks are well formed", () => {
  it("every fenced block of README.md and docs/*.md names a language the doc test knows", () => {
    const known: readonly string[] = [...RUN_LANGUAGES, ...SHOWN_LANGUAGES];
    const unknown = blocks
      .filter((block) => !known.includes(block.language))
      .map((block) => `${where(block)} \`\`\`${block.language}`);
    expect(unknown, `use one of ${known.join(", ")}`).toEqual([]);
  });

  it("every doc-test marker is a skip with a reason, right before a fence", async () => {
    const { readFile } = await import("node:fs/promises");
    const problems = blocks.filter((block) => block.badMarker).map((block) => `${where(block)}: ${block.badMarker}`);
    for (const file of await docFiles(ROOT)) {
      const lines = (await readFile(path.join(ROOT, file), "utf8")).split("\n");
      lines.forEach((line, index) => {
        if (
          line.includes("doc-test:") &&
          line.trim().startsWith("<!--") &&
          !/^\s*(`{3,}|~{3,})/.test(lines[index + 1] ?? "")
        ) {
          problems.push(`${file}:${index + 1}: a marker not followed by a fence`);
        }
      });
    }
    expect(problems).toEqual([]);
  });
});

describe("doc links resolve", () => {
  it("every relative link of README.md and docs/*.md names a file and heading that exist", async () => {
    const { readFile } = await import("node:fs/promises");
    const problems: string[] = [];
    for (const file of await docFiles(ROOT)) {
      for (const link of parseDocLinks(file, await readFile(path.join(ROOT, file), "utf8"))) {
        const [target = "", anchor] = link.target.split("#");
        const linked = target === "" ? file : path.join(path.dirname(file), target);
        if (!existsSync(path.join(ROOT, linked))) {
          problems.push(`${file}:${link.line}: ${link.target}: there is no ${linked}`);
        } else if (
          anchor &&
          linked.endsWith(".md") &&
          !headingAnchors(await readFile(path.join(ROOT, linked), "utf8")).has(anchor)
        ) {
          problems.push(`${file}:${link.line}: ${link.target}: ${linked} has no heading #${anchor}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe.runIf(workflows.length > 0)("whole workflows shown in the docs load", () => {
  it.each(workflows.map((block) => [`${where(block)} (yaml)`, block] as const))("%s", async (_name, block) => {
    await expect(
      loadWorkflow(block.code, { fileName: where(block), baseDir: path.join(ROOT, "workflows") }),
    ).resolves.toBeDefined();
  });
});

describe("doc blocks run", () => {
  let sandbox: DocSandbox;
  let statusBefore: string[];
  // Two blocks at a time: most of a block is process start-up, and the machine may have two cores.
  const processes = new PQueue({ concurrency: BLOCKS_AT_ONCE });

  beforeAll(async () => {
    const missing = await missingPackageFiles(ROOT);
    if (missing.length > 0) {
      throw new Error(
        `Doc blocks use svc-flow as installed, but ${missing.join(", ")} do not exist. Run \`npm run build\` first (\`npm test\` does).`,
      );
    }
    statusBefore = gitStatus();
    sandbox = await DocSandbox.create(ROOT);
  });

  afterAll(async () => {
    await sandbox?.remove();
  });

  describe.concurrent("each block exits 0", () => {
    for (const block of runnable) {
      const name = `${where(block)} (${block.language})`;
      if (block.skip) {
        it.skip(`${name}: ${block.skip}`, () => {});
        continue;
      }
      // The block's own limit is BLOCK_TIMEOUT_MS (its process group is killed then); the test's
      // allows for waiting its turn behind the blocks ahead of it.
      it(
        name,
        async () => {
          const run = await processes.add(async () =>
            runDocBlock(block, { cwd: await sandbox.blockDir(), env: sandbox.env(), timeoutMs: BLOCK_TIMEOUT_MS }),
          );
          const detail = `${name} ${run.timedOut ? `did not finish in ${BLOCK_TIMEOUT_MS / 1000} s (close what it starts)` : `exited ${run.exitCode ?? run.signal}`}\n--- block\n${block.code}--- stdout\n${tail(run.stdout)}\n--- stderr\n${tail(run.stderr)}`;
          expect(run.exitCode === 0 && !run.timedOut, detail).toBe(true);
        },
        BLOCK_TIMEOUT_MS * 4,
      );
    }
  });

  it(
    "every ts block type-checks in a strict project that installed svc-flow",
    async () => {
      const blocks = runnable.filter((block) => block.language === "ts" && !block.skip);
      const dir = path.join(sandbox.dir, "typecheck");
      const output = await typeCheckBlocks(blocks, {
        root: ROOT,
        dir,
        env: sandbox.env(),
        timeoutMs: BLOCK_TIMEOUT_MS,
      });
      // tsc names each block's module <doc>-<line>.mts: the doc and the line of the block's fence.
      expect(output).toBe("");
    },
    BLOCK_TIMEOUT_MS + 30_000,
  );

  it("the blocks leave the checkout as they found it", () => {
    const added = gitStatus().filter((line) => !statusBefore.includes(line));
    expect(added).toEqual([]);
  });
});
