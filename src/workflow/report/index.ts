// The run report (report.html): what a person opens to see a run.
export { escapeHtml } from "./escape-html.js";
export { renderReport } from "./render-report.js";
export { REPORT_FILE, writeReportFile } from "./write-report-file.js";
