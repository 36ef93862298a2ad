import { ConfigError } from "../errors.js";
import { formatPath, type ValuePath } from "./expression/index.js";

/** One problem in a workflow file, with where it is. */
export interface WorkflowIssue {
  /** The file as the user named it, or `<inline>`. */
  readonly file: string;
  /** 1-based line and column of the offending node (0 when the file has none, e.g. empty text). */
  readonly line: number;
  readonly column: number;
  /** The path of the offending value, e.g. `["steps", 1, "with", "model"]`. */
  readonly path: ValuePath;
  readonly message: string;
}

/** A workflow file failed to load: every problem found, each naming file, line and path. */
export class WorkflowError extends ConfigError {
  readonly issues: readonly WorkflowIssue[];

  constructor(issues: readonly WorkflowIssue[]) {
    super(describe(issues), { code: "invalid_workflow" });
    this.issues = issues;
  }
}

/** `file:line:column path: message`, the form editors and terminals turn into links. */
export function formatIssue(issue: WorkflowIssue): string {
  const where = issue.line > 0 ? `${issue.file}:${issue.line}:${issue.column}` : issue.file;
  return issue.path.length === 0
    ? `${where}: ${issue.message}`
    : `${where} ${formatPath(issue.path)}: ${issue.message}`;
}

function describe(issues: readonly WorkflowIssue[]): string {
  if (issues.length === 1) return formatIssue(issues[0]!);
  const file = issues[0]?.file ?? "The workflow";
  return `${file} has ${issues.length} problems:\n${issues.map((issue) => `  ${formatIssue(issue)}`).join("\n")}`;
}
