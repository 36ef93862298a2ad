// The package as a user gets it: `npm pack`, `npm install` of the tarball into an empty "type": "module"
// project (dependencies from npm's cache where it has them), then plain `node` (no tsx) on Node 20 and 24,
// the installed bin, and tsc as a consumer of the .d.ts files. The global setup has just built dist/.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..");
const TSC = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
// .ci/run installs npm's `node@24` package here; SVC_FLOW_NODE24 may point at any Node 24 binary instead.
const NODE24 =
  process.env.SVC_FLOW_NODE24 ??
  path.join(ROOT, "node_modules", ".cache", "node24", "node_modules", "node", "bin", "node");
const SLOW_MS = 240_000;

let dir: string;
let project: string;

const APP = `import { ChatGateway, startLocalGateway } from "svc-flow";

const gateway = await startLocalGateway({ port: 0 });
const model = new ChatGateway({ model: "beta-4o-mini", baseURL: gateway.baseURL, apiKey: "sk-local-demo", maxTokens: 64 });
try {
  const reply = await model.invoke("Name one colour.");
  let streamed = "";
  let chunks = 0;
  for await (const chunk of await model.stream("Name two colours.")) {
    streamed += chunk.text;
    chunks++;
  }
  console.log(JSON.stringify({ invoked: reply.text, streamed, chunks, node: process.version }));
} finally {
  await model.close();
  await gateway.close();
}
`;

const SUBPATHS = `import * as langchain from "svc-flow/langchain";
import * as localGateway from "svc-flow/local-gateway";
import * as workflow from "svc-flow/workflow";
import schema from "svc-flow/workflow.schema.json" with { type: "json" };
import manifest from "svc-flow/package.json" with { type: "json" };

console.log(JSON.stringify({
  langchain: typeof langchain.ChatGateway,
  localGateway: typeof localGateway.startLocalGateway,
  workflow: typeof workflow.runWorkflow,
  schema: typeof schema.properties,
  version: manifest.version,
}));
`;

const CONSUMER = `import { ChatGateway, CostLedger, GatewayClient, catalog, runWorkflow, startLocalGateway, SvcFlowError, type ChatGatewayOptions, type RunResult } from "svc-flow";
import { ChatGateway as LangChainGateway } from "svc-flow/langchain";
import { loadGatewayConfig, type LocalGateway } from "svc-flow/local-gateway";
import { loadWorkflow, type Workflow } from "svc-flow/workflow";

const options: ChatGatewayOptions = { model: "beta-4o-mini", maxConcurrency: 8 };

export async function main(): Promise<RunResult> {
  const gateway: LocalGateway = await startLocalGateway({ port: 0 });
  const model = new ChatGateway({ ...options, baseURL: gateway.baseURL, apiKey: "sk-local-demo" });
  const text: string = (await model.invoke("hi")).text;
  const client = new GatewayClient({ baseURL: gateway.baseURL, apiKey: "sk-local-demo" });
  const workflow: Workflow = await loadWorkflow("workflow.yaml");
  void [text, client, new CostLedger(), catalog.getModel("beta-5").id, LangChainGateway, loadGatewayConfig, SvcFlowError];
  return runWorkflow(workflow, {});
}
`;

function tsconfig(compilerOptions: Record<string, unknown>): string {
  const base = { target: "ES2022", strict: true, skipLibCheck: false, noEmit: true, types: ["node"] };
  return JSON.stringify({ compilerOptions: { ...base, ...compilerOptions }, files: ["consumer.ts"] });
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

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "svc-flow-package-"));
  project = path.join(dir, "app");
  const packed = await run("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], { cwd: ROOT });
  const tarball = path.join(dir, packed.stdout.trim().split("\n").at(-1)!);
  await run("mkdir", [project]);
  await writeFile(
    path.join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  await run(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball, "@types/node@20"],
    {
      cwd: project,
    },
  );
  await writeFile(path.join(project, "app.mjs"), APP);
  await writeFile(path.join(project, "subpaths.mjs"), SUBPATHS);
  await writeFile(path.join(project, "consumer.ts"), CONSUMER);
}, SLOW_MS);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe("the packed package installed in another project", () => {
  it("ships dist, the schema, workflows and the LICENSE, and no tests, benchmarks, CI or tsx", async () => {
    const installed = path.join(project, "node_modules", "svc-flow");
    for (const shipped of [
      "LICENSE",
      "README.md",
      "dist/src/index.js",
      "dist/src/index.d.ts",
      "src/workflow/workflow.schema.json",
      "workflows/launch-kit.yaml",
    ]) {
      expect(existsSync(path.join(installed, shipped)), shipped).toBe(true);
    }
    for (const left of ["test", "bench", ".ci", "src/index.ts", "tsconfig.json", "dist/.tsbuildinfo"]) {
      expect(existsSync(path.join(installed, left)), left).toBe(false);
    }
    expect(existsSync(path.join(project, "node_modules", "tsx"))).toBe(false);
  });

  it("installs @langchain/core once, in the project, as the peer svc-flow and langchain share", async () => {
    const modules = path.join(project, "node_modules");
    const core = JSON.parse(await readFile(path.join(modules, "@langchain", "core", "package.json"), "utf8")) as {
      version: string;
    };
    const ours = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")) as {
      peerDependencies: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(ours.peerDependencies["@langchain/core"]).toBe("~1.4.0");
    expect(ours.dependencies["@langchain/core"]).toBeUndefined();
    expect(core.version).toMatch(/^1\.4\.\d+$/);
    for (const nested of ["svc-flow", "langchain"])
      expect(existsSync(path.join(modules, nested, "node_modules", "@langchain", "core")), nested).toBe(false);
  });

  it(
    "invokes and streams ChatGateway against startLocalGateway under plain node",
    async () => {
      const { stdout } = await run(process.execPath, ["app.mjs"], { cwd: project });
      const result = JSON.parse(stdout) as { invoked: string; streamed: string; chunks: number };
      expect(result.invoked.length).toBeGreaterThan(0);
      expect(result.streamed.length).toBeGreaterThan(0);
      expect(result.chunks).toBeGreaterThan(1);
    },
    SLOW_MS,
  );

  // Skipped only where no Node 24 was installed and this is not CI; in CI a missing Node 24 fails.
  it.runIf(existsSync(NODE24) || process.env.CI === "true")(
    "does the same on Node 24",
    async () => {
      expect(existsSync(NODE24), `no Node 24 at ${NODE24}: run .ci/run, or set SVC_FLOW_NODE24`).toBe(true);
      const { stdout } = await run(NODE24, ["app.mjs"], { cwd: project });
      const result = JSON.parse(stdout) as { invoked: string; streamed: string; chunks: number; node: string };
      expect(result.node).toMatch(/^v24\./);
      expect(result.invoked.length).toBeGreaterThan(0);
      expect(result.chunks).toBeGreaterThan(1);
    },
    SLOW_MS,
  );

  it(
    "imports each subpath on its own, the JSON Schema and package.json included",
    async () => {
      const { stdout } = await run(process.execPath, ["subpaths.mjs"], { cwd: project });
      const version = (JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")) as { version: string })
        .version;
      expect(JSON.parse(stdout)).toEqual({
        langchain: "function",
        localGateway: "function",
        workflow: "function",
        schema: "object",
        version,
      });
    },
    SLOW_MS,
  );

  it(
    "runs the installed svc-flow bin: --version and validate of a shipped workflow",
    async () => {
      const bin = path.join(project, "node_modules", ".bin", "svc-flow");
      expect((await run(bin, ["--version"], { cwd: project })).stdout).toMatch(/^svc-flow \d+\.\d+\.\d+/);
      const file = path.join("node_modules", "svc-flow", "workflows", "launch-kit.yaml");
      expect((await run(bin, ["validate", file], { cwd: project })).stdout).toContain(": ok (launch-kit");
    },
    SLOW_MS,
  );

  it(
    "type-checks a strict consumer with moduleResolution bundler and no skipLibCheck",
    async () => {
      await writeFile(
        path.join(project, "tsconfig.bundler.json"),
        tsconfig({ module: "esnext", moduleResolution: "bundler" }),
      );
      expect(await tscErrors("tsconfig.bundler.json")).toEqual([]);
    },
    SLOW_MS,
  );

  // With exactOptionalPropertyTypes, LangChain's own declarations report errors (theirs, not ours): only
  // errors inside svc-flow's declarations or the consumer count.
  it(
    "reports no error in svc-flow's declarations for a node16 consumer with exactOptionalPropertyTypes",
    async () => {
      const strictest = {
        module: "node16",
        moduleResolution: "node16",
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
      };
      await writeFile(path.join(project, "tsconfig.node16.json"), tsconfig(strictest));
      const ours = (await tscErrors("tsconfig.node16.json")).filter(
        (line) => line.startsWith("consumer.ts") || line.includes("node_modules/svc-flow/"),
      );
      expect(ours).toEqual([]);
    },
    SLOW_MS,
  );
});
