#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so the package needs no build step.
import { register } from "tsx/esm/api";

register();
const { runFromProcess } = await import("../src/cli/main.ts");
await runFromProcess();
