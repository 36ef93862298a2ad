#!/usr/bin/env node
// Runs the built CLI in dist/ (`npm run build`; `npm install` in a clone runs it through `prepare`).
import { existsSync } from "node:fs";

const entry = new URL("../dist/src/cli/main.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    "svc-flow is not built: run `npm run build` in its folder (npm install there does it for you).\n",
  );
  process.exit(1);
}
const { runFromProcess } = await import(entry.href);
await runFromProcess();
