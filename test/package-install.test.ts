// The package as a user gets it: `npm pack`, `npm install` of the tarball into an empty "type": "module"
// project with the user's own zod and langchain (dependencies from npm's cache where it has them), then plain
// `node` (no tsx) on Node 20 and 24, CommonJS callers, the installed bin, and tsc as a consumer of the .d.ts
// files. The programs it runs are test/fixtures/package-consumer/. The global setup has just built dist/.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..");
const FIXTURES = path.join(ROOT, "test", "fixtures", "package-consumer");
const TSC = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
// .ci/run installs npm's `node@24` package here; SVC_FLOW_NODE24 may point at any Node 24 binary instead.
const NODE24 =
  process.env.SVC_FLOW_NODE24 ??
  path.join(ROOT, "node_modules", ".cache", "node24", "node_modules", "node", "bin", "node");
// Skipped only where no Node 24 was installed and this is not CI; in CI a missing Node 24 fails.
const onNode24 = it.runIf(existsSync(NODE24) || process.env.CI === "true");
const SLOW_MS = 240_000;

interface Manifest {
  version: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
}

let dir: string;
let project: string;
let installed: string;
let ours: Manifest;

/** The environment of a user without a gateway configured: every program starts the embedded one. */
function offline(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { SVC_BASE_URL: _url, SVC_API_KEY: _key, ...env } = process.env;
  return { ...env, ...extra };
}

/** Runs a program of the project with a node binary; parses the JSON line it prints. */
async function runJson<T>(node: string, file: string): Promise<T> {
  const { stdout } = await run(node, [file], { cwd: project, env: offline() });
  return JSON.parse(stdout) as T;
}

function tsconfig(files: string[], compilerOptions: Record<string, unknown>): string {
  const base = { target: "ES2022", strict: true, skipLibCheck: false, noEmit: true, types: ["node"] };
  return JSON.stringify({ compilerOptions: { ...base, ...compilerOptions }, files });
}

async function tscErrors(config: string): Promise<string[]> {
  try {
    await run(process.execPath, [TSC, "-p", config], { cwd: project, maxBuffer: 16 * 1024 * 1024 });
    return [];
  } catch (error) {
    const output = (error as { stdout?: string }).stdout ?? String(error);
    return output.split("\n").filter((line) => /error TS\d+/.test(line));
  }
}

// One tsc run both checks the nodenext consumer and compiles langchain-patterns.ts to out/ for the runs below.
let nodenextCompile: Promise<string[]> | undefined;
function compileNodenext(): Promise<string[]> {
  nodenextCompile ??= (async () => {
    const files = ["consumer.ts", "schema-import.ts", "langchain-patterns.ts", "commonjs.cts"];
    const options = { module: "nodenext", moduleResolution: "nodenext", verbatimModuleSyntax: true };
    await writeFile(
      path.join(project, "tsconfig.nodenext.json"),
      tsconfig(files, { ...options, noEmit: false, outDir: "out" }),
    );
    return tscErrors("tsconfig.nodenext.json");
  })();
  return nodenextCompile;
}

// The specifiers of import and export statements, import() calls, bare `import "x"` lines and type references.
const IMPORT =
  /^\s*(?:import|export)\b[^;"']*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']|^\/\/\/\s*<reference\s+types=["']([^"']+)["']/gm;

/** The package a bare specifier names: `@scope/name` or `name`. */
function packageName(specifier: string): string {
  return specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");
}

/** Every file under a folder, relative to it. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.split(path.sep).includes("node_modules"));
}

beforeAll(async () => {
  ours = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")) as Manifest;
  dir = await mkdtemp(path.join(tmpdir(), "svc-flow-package-"));
  project = path.join(dir, "app");
  installed = path.join(project, "node_modules", "svc-flow");
  const packed = await run("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], { cwd: ROOT });
  const tarball = path.join(dir, packed.stdout.trim().split("\n").at(-1)!);
  await mkdir(project);
  await writeFile(
    path.join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  // The user's own zod and langchain, at the ranges svc-flow uses, as a project that writes tools and agents has.
  const own = ["zod", "langchain"].map((name) => `${name}@${ours.dependencies[name]}`);
  const install = ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"];
  await run("npm", [...install, tarball, "@types/node@20", ...own], { cwd: project });
  await cp(FIXTURES, project, { recursive: true });
}, SLOW_MS);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe("the packed package's files", () => {
  it("ships dist, the schema, workflows and the LICENSE, and no tests, benchmarks, CI, tsx or build scripts", async () => {
    for (const shipped of [
      "LICENSE",
      "README.md",
      "dist/src/index.js",
      "dist/src/index.d.ts",
      "cjs/index.cjs",
      "src/workflow/workflow.schema.json",
      "workflows/launch-kit.yaml",
    ]) {
      expect(existsSync(path.join(installed, shipped)), shipped).toBe(true);
    }
    for (const left of [
      "test",
      "bench",
      ".ci",
      "src/index.ts",
      "tsconfig.json",
      "dist/.tsbuildinfo",
      "dist/src/workflow/schema/write-schema-file.js",
      "dist/src/workflow/load/meta-validator-code.js",
    ]) {
      expect(existsSync(path.join(installed, left)), left).toBe(false);
    }
    expect((await filesUnder(installed)).filter((file) => /\.(map|ts\.map|tsbuildinfo)$/.test(file))).toEqual([]);
    expect(existsSync(path.join(project, "node_modules", "tsx"))).toBe(false);
  });

  it("has every relative import of its JavaScript and declarations in the tarball, and no import of a dev-only package", async () => {
    const allowed = new Set([...Object.keys(ours.dependencies), ...Object.keys(ours.peerDependencies), "svc-flow"]);
    const missing: string[] = [];
    const foreign: string[] = [];
    for (const file of await filesUnder(installed)) {
      if (!/\.(js|d\.ts)$/.test(file)) continue;
      for (const match of (await readFile(path.join(installed, file), "utf8")).matchAll(IMPORT)) {
        const specifier = match.slice(1).find((group) => group !== undefined) ?? "";
        const relative = file.endsWith(".d.ts") ? specifier.replace(/\.js$/, ".d.ts") : specifier;
        if (specifier.startsWith(".")) {
          if (!existsSync(path.join(installed, path.dirname(file), relative))) missing.push(`${file} -> ${specifier}`);
        } else if (!allowed.has(packageName(specifier)) && !isBuiltin(specifier)) {
          foreign.push(`${file} -> ${specifier}`);
        }
      }
    }
    expect(missing).toEqual([]);
    expect(foreign).toEqual([]);
  });

  it("installs @langchain/core once, in the project, as the peer svc-flow and langchain share", async () => {
    const modules = path.join(project, "node_modules");
    const core = JSON.parse(await readFile(path.join(modules, "@langchain", "core", "package.json"), "utf8")) as {
      version: string;
    };
    expect(ours.peerDependencies["@langchain/core"]).toBe("~1.4.0");
    expect(ours.dependencies["@langchain/core"]).toBeUndefined();
    expect(core.version).toMatch(/^1\.4\.\d+$/);
    for (const nested of ["svc-flow", "langchain"])
      expect(existsSync(path.join(modules, nested, "node_modules", "@langchain", "core")), nested).toBe(false);
  });

  it(
    "is refused by npm beside another @langchain/core minor, with an error naming svc-flow's peer range",
    async () => {
      const other = path.join(dir, "other-core");
      await mkdir(other);
      await writeFile(path.join(other, "package.json"), JSON.stringify({ name: "other", private: true }));
      const tarball = (await readdir(dir)).find((name) => name.endsWith(".tgz"))!;
      const install = ["install", "--dry-run", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"];
      const refused = await run("npm", [...install, path.join(dir, tarball), "@langchain/core@~1.3.0"], {
        cwd: other,
      }).then(
        () => "installed",
        (error: { stderr?: string }) => error.stderr ?? "",
      );
      expect(refused).toContain("ERESOLVE");
      expect(refused).toContain('peer @langchain/core@"~1.4.0" from svc-flow');
    },
    SLOW_MS,
  );
});

describe("the installed package under plain node", () => {
  it(
    "invokes and streams ChatGateway against startLocalGateway",
    async () => {
      const result = await runJson<{ invoked: string; streamed: string; chunks: number }>(process.execPath, "app.mjs");
      expect(result.invoked.length).toBeGreaterThan(0);
      expect(result.streamed.length).toBeGreaterThan(0);
      expect(result.chunks).toBeGreaterThan(1);
    },
    SLOW_MS,
  );

  it(
    "imports each subpath on its own, the JSON Schema and package.json included",
    async () => {
      expect(await runJson(process.execPath, "subpaths.mjs")).toEqual({
        langchain: "function",
        localGateway: "function",
        workflow: "function",
        schema: "object",
        version: ours.version,
      });
    },
    SLOW_MS,
  );

  it(
    "runs the LangChain patterns users write: tools, structured output, streams, batch, aborts and createAgent",
    async () => {
      expect(await compileNodenext()).toEqual([]);
      const result = await runJson<Record<string, unknown>>(process.execPath, "out/langchain-patterns.js");
      expect(result).toEqual({
        toolCalls: ["get_weather"],
        zod: "number",
        jsonSchema: "string",
        streamed: true,
        events: ["on_chat_model_end", "on_chat_model_start", "on_chat_model_stream"],
        batch: [true, true],
        abortedBefore: "AbortedError",
        // While a stream is read, LangChain itself rejects with the signal's reason (a DOMException).
        abortedDuring: "AbortError",
        afterAbort: true,
        agentToolResults: ["Sunny and 21 degrees in Kyoto."],
        agentAnswered: true,
        node: process.version,
      });
    },
    SLOW_MS,
  );
});

describe("CommonJS callers", () => {
  it(
    "load every subpath with await import()",
    async () => {
      const result = await runJson<{ text: string; shared: boolean }>(process.execPath, "dynamic-import.cjs");
      expect(result.text.length).toBeGreaterThan(0);
      expect(result.shared).toBe(true);
    },
    SLOW_MS,
  );

  it.runIf(process.features.require_module === true)(
    "require() every subpath where Node can require ES modules (20.19+, 22.12+, 24)",
    async () => {
      const result = await runJson<Record<string, unknown>>(process.execPath, "require.cjs");
      expect(result).toMatchObject({ shared: true, workflow: "function", schema: "object" });
      expect(String(result.text).length).toBeGreaterThan(0);
    },
    SLOW_MS,
  );

  // --no-experimental-require-module gives the loader of Node 20.18, which cannot require an ES module.
  it(
    "get an ERR_REQUIRE_ESM that names svc-flow, the Node versions and await import() where Node cannot require ES modules",
    async () => {
      const failure = await run(process.execPath, ["--no-experimental-require-module", "require.cjs"], {
        cwd: project,
        env: offline(),
      }).then(
        () => "loaded",
        (error: { stderr?: string }) => error.stderr ?? "",
      );
      expect(failure).toContain(
        `Error: require("svc-flow") needs a Node that can require() an ES module (20.19+, 22.12+ or 24, without --no-experimental-require-module); this one (${process.version}) cannot. Load it with \`await import("svc-flow")\`, which works on every supported Node, or upgrade Node.`,
      );
      expect(failure).toContain("code: 'ERR_REQUIRE_ESM'");
    },
    SLOW_MS,
  );
});

describe("the installed svc-flow bin", () => {
  it(
    "prints --version and validates a shipped workflow",
    async () => {
      const bin = path.join(project, "node_modules", ".bin", "svc-flow");
      expect((await run(bin, ["--version"], { cwd: project })).stdout).toMatch(/^svc-flow \d+\.\d+\.\d+/);
      const file = path.join("node_modules", "svc-flow", "workflows", "launch-kit.yaml");
      expect((await run(bin, ["validate", file], { cwd: project })).stdout).toContain(": ok (launch-kit");
    },
    SLOW_MS,
  );

  it(
    "prints its commands with npx svc-flow --help",
    async () => {
      const { stdout } = await run("npx", ["--no-install", "svc-flow", "--help"], { cwd: project });
      expect(stdout).toMatch(/^Usage: svc-flow <command>/);
      expect(stdout).toContain("run       Run a workflow file");
    },
    SLOW_MS,
  );

  it(
    "runs a shipped workflow with npx svc-flow run, on a local gateway it starts itself",
    async () => {
      const file = path.join("node_modules", "svc-flow", "workflows", "launch-kit.yaml");
      const { stdout, stderr } = await run("npx", ["--no-install", "svc-flow", "run", file], {
        cwd: project,
        env: offline(),
      });
      expect(stderr).toContain("using a local gateway with simulated models");
      const outputs = /Outputs: (\S+outputs\.json)/.exec(stdout)?.[1];
      expect(outputs, stdout).toBeDefined();
      const values = JSON.parse(await readFile(path.join(project, outputs!), "utf8")) as Record<string, unknown>;
      expect(Object.keys(values)).toContain("taglines");
    },
    SLOW_MS,
  );
});

describe("the installed package on Node 24", () => {
  onNode24(
    "invokes and streams ChatGateway",
    async () => {
      expect(existsSync(NODE24), `no Node 24 at ${NODE24}: run .ci/run, or set SVC_FLOW_NODE24`).toBe(true);
      const result = await runJson<{ invoked: string; chunks: number; node: string }>(NODE24, "app.mjs");
      expect(result.node).toMatch(/^v24\./);
      expect(result.invoked.length).toBeGreaterThan(0);
      expect(result.chunks).toBeGreaterThan(1);
    },
    SLOW_MS,
  );

  onNode24(
    "runs the LangChain patterns",
    async () => {
      expect(await compileNodenext()).toEqual([]);
      const result = await runJson<Record<string, unknown>>(NODE24, "out/langchain-patterns.js");
      expect(result).toMatchObject({
        toolCalls: ["get_weather"],
        zod: "number",
        jsonSchema: "string",
        afterAbort: true,
      });
      expect(result).toMatchObject({ agentToolResults: ["Sunny and 21 degrees in Kyoto."], agentAnswered: true });
      expect(result.node).toMatch(/^v24\./);
    },
    SLOW_MS,
  );

  onNode24(
    "require()s every subpath from CommonJS",
    async () => {
      const result = await runJson<Record<string, unknown>>(NODE24, "require.cjs");
      expect(result).toMatchObject({ shared: true, workflow: "function", schema: "object" });
    },
    SLOW_MS,
  );

  onNode24(
    "runs a shipped workflow with the bin",
    async () => {
      const env = offline({ PATH: `${path.dirname(NODE24)}${path.delimiter}${process.env.PATH ?? ""}` });
      const file = path.join("node_modules", "svc-flow", "workflows", "blurbs.yaml");
      const { stdout } = await run(path.join("node_modules", ".bin", "svc-flow"), ["run", file], { cwd: project, env });
      expect(stdout).toMatch(/Done\. Outputs: \S+outputs\.json/);
    },
    SLOW_MS,
  );
});

describe("TypeScript consumers (strict, skipLibCheck false)", () => {
  it(
    "type-check every subpath with module nodenext and verbatimModuleSyntax, from ES and CommonJS modules",
    async () => {
      expect(await compileNodenext()).toEqual([]);
    },
    SLOW_MS,
  );

  it(
    "type-check every subpath with moduleResolution bundler and verbatimModuleSyntax",
    async () => {
      const files = ["consumer.ts", "schema-import.ts", "langchain-patterns.ts"];
      const options = { module: "esnext", moduleResolution: "bundler", verbatimModuleSyntax: true };
      await writeFile(path.join(project, "tsconfig.bundler.json"), tsconfig(files, options));
      expect(await tscErrors("tsconfig.bundler.json")).toEqual([]);
    },
    SLOW_MS,
  );

  // With exactOptionalPropertyTypes, LangChain's own declarations report errors (theirs, not ours): only
  // errors inside svc-flow's declarations or the consumer count. node16 has no import attributes, so the JSON
  // Schema import is left out.
  it(
    "report no error in svc-flow's declarations with module node16 and exactOptionalPropertyTypes",
    async () => {
      const strictest = {
        module: "node16",
        moduleResolution: "node16",
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
      };
      await writeFile(path.join(project, "tsconfig.node16.json"), tsconfig(["consumer.ts"], strictest));
      const errors = (await tscErrors("tsconfig.node16.json")).filter(
        (line) => line.startsWith("consumer.ts") || line.includes("node_modules/svc-flow/"),
      );
      expect(errors).toEqual([]);
    },
    SLOW_MS,
  );
});
