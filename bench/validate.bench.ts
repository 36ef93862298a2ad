// Validating a 20,000-step workflow (chat steps reading earlier ones, maps, parallels; about 2 MB):
// CPU time of loadWorkflow (parse, shape, every load-time check; the step graph is built when a run
// first reads it, so it is not counted) in a fresh node each time, against parsing the same YAML
// alone with the yaml package in a fresh node (the loader reads a file's value with js-yaml and
// uses the yaml package only to place errors), and the whole `svc-flow validate FILE` process.
// Target: loadWorkflow under 2,000 ms of CPU.
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { median, type Bench, type BenchRow } from "./harness.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = fileURLToPath(new URL("../bin/svc-flow.js", import.meta.url));
const TSC = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
const STEPS = 20_000;

// Run with the project as working folder, so "svc-flow/workflow" resolves to the package itself.
const LOAD_PROBE = `const { loadWorkflow } = await import("svc-flow/workflow");
const before = process.cpuUsage();
const workflow = await loadWorkflow(process.argv[1]);
const used = process.cpuUsage(before);
if (workflow.definition.steps.length === 0) throw new Error("no steps");
process.stdout.write(JSON.stringify((used.user + used.system) / 1000));`;

const YAML_PROBE = `const { readFileSync } = await import("node:fs");
const { parseDocument } = await import("yaml");
const before = process.cpuUsage();
const document = parseDocument(readFileSync(process.argv[1], "utf8"), { version: "1.2", schema: "core" });
document.toJS();
const used = process.cpuUsage(before);
process.stdout.write(JSON.stringify((used.user + used.system) / 1000));`;

/** A workflow of `count` top-level steps: chat steps reading the one before, every 50th a map, every 100th a parallel. */
function workflowText(count: number): string {
  const lines = ["version: 1", "name: many-steps", "inputs:", "  topic: { type: string, default: lamps }", "steps:"];
  for (let index = 0; index < count; index++) {
    const previous = index === 0 ? "${{ inputs.topic }}" : `\${{ steps.s${index - 1}.output.text }}`;
    lines.push(`  - id: s${index}`);
    if (index % 100 === 99) {
      lines.push("    parallel:", `      - { id: s${index}a, uses: chat, with: { prompt: "A ${previous}" } }`);
      lines.push(`      - { id: s${index}b, uses: chat, with: { prompt: "B ${previous}" } }`);
    } else if (index % 50 === 49) {
      lines.push(`    map: \${{ steps.s${index - 1}.output.text }}`, "    as: line", "    steps:");
      lines.push(`      - { id: s${index}x, uses: chat, with: { prompt: "Item \${{ line }} ${previous}" } }`);
    } else {
      lines.push("    uses: chat", "    with:", `      prompt: "Step ${index}: ${previous}"`);
    }
  }
  lines.push("defaults: { model: alpha-sonnet-4-6, maxTokens: 50 }");
  return `${lines.join("\n")}\n`;
}

async function probeMs(probe: string, file: string): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", probe, file], {
    cwd: ROOT,
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(stdout) as number;
}

async function processMs(args: readonly string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: "ignore" });
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`node ${args.join(" ")} exited with ${String(code)}.`);
  return performance.now() - started;
}

const validate: Bench = {
  name: "validate",
  async run({ quick }) {
    await promisify(execFile)(process.execPath, [TSC, "-p", "tsconfig.build.json"], { cwd: ROOT });
    const folder = await mkdtemp(join(tmpdir(), "svc-flow-bench-validate-"));
    try {
      const file = join(folder, "many-steps.yaml");
      await writeFile(file, workflowText(STEPS));
      const repeats = quick ? 3 : 7;
      const load: number[] = [];
      const yaml: number[] = [];
      const cli: number[] = [];
      for (let index = 0; index < repeats; index++) {
        load.push(await probeMs(LOAD_PROBE, file));
        yaml.push(await probeMs(YAML_PROBE, file));
        cli.push(await processMs([BIN, "validate", file]));
      }
      const ratio = median(load.map((value, index) => value / yaml[index]!));
      const rows: BenchRow[] = [
        {
          bench: "validate",
          case: `${STEPS.toLocaleString("en")} steps`,
          metric: "loadWorkflow CPU",
          value: median(load),
          unit: "ms",
          baseline: median(yaml),
          ratio,
          note: `median of ${repeats}, fresh node each; baseline: the yaml package parsing the file alone; target < 2000 ms`,
        },
        {
          bench: "validate",
          case: `${STEPS.toLocaleString("en")} steps`,
          metric: "svc-flow validate wall",
          value: median(cli),
          unit: "ms",
          note: `median of ${repeats}, whole process (start-up included)`,
        },
      ];
      return rows;
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  },
};

export default validate;
