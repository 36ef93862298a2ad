import { rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { RunSummary } from "../run/run-summary.js";
import { itemsPageFile, type BatchPage } from "./render-batch-items.js";
import { readBatchPages } from "./read-batch-pages.js";
import { renderItemsPage, renderReport } from "./render-report.js";
import { storeInputMedia } from "./store-input-media.js";

/** The report's file name in a run directory. */
export const REPORT_FILE = "report.html";

async function writeWhole(runDir: string, name: string, html: string): Promise<void> {
  const temporary = path.join(runDir, `.${name}.${process.pid}.tmp`);
  await writeFile(temporary, html);
  await rename(temporary, path.join(runDir, name));
}

/**
 * The default report writer: renders the run and writes <runDir>/report.html whole (temp file,
 * rename), with a batch's further rows as report-items-N.html, a page at a time. Media inputs are
 * copied into artifacts/ so the page can show them. No fsync: the report is derived from the
 * journal and rewritten on every attempt, so it is not worth a disk flush.
 */
export async function writeReportFile(summary: RunSummary): Promise<void> {
  const inputMedia = await storeInputMedia(summary);
  let first: BatchPage | undefined;
  for await (const page of readBatchPages(summary.runDir)) {
    if (page.page === 1) first = page;
    else await writeWhole(summary.runDir, itemsPageFile(page.page), renderItemsPage(summary, page, { inputMedia }));
  }
  await writeWhole(
    summary.runDir,
    REPORT_FILE,
    renderReport(summary, { inputMedia, ...(first === undefined ? {} : { batch: first }) }),
  );
}
