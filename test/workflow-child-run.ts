// Runs a workflow in its own process so a test can kill it mid-run: argv is the workflow file and
// the run directory; the gateway comes from SVC_BASE_URL and SVC_API_KEY.
import { loadWorkflow, runWorkflow } from "../src/workflow/index.js";

const [file, outDir] = process.argv.slice(2);
const workflow = await loadWorkflow(file!);
const result = await runWorkflow(workflow, { outDir: outDir!, music: { pollIntervalMs: 20 } });
process.stdout.write(`${result.status}\n`);
