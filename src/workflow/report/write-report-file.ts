import { rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { RunSummary } from "../run/run-summary.js";
import { renderReport } from "./render-report.js";

/** The report's file name in a run directory. */
export const REPORT_FILE = "report.html";

/**
 * The default report writer: renders the run and writes <runDir>/report.html whole (temp file, rename).
 * No fsync: the report is derived from the journal and rewritten on every attempt, so it is not worth a disk flush.
 */
export async function writeReportFile(summary: RunSummary): Promise<void> {
  const file = path.join(summary.runDir, REPORT_FILE);
  const temporary = path.join(summary.runDir, `.${REPORT_FILE}.${process.pid}.tmp`);
  await writeFile(temporary, renderReport(summary));
  await rename(temporary, file);
}
