import type { RunStatus } from "../workflow/workflow-event.js";

/** The exit codes of every command: 0 done, 1 the work failed or stopped (resumable), 2 bad usage or input (nothing spent), 3 waiting for a person. */
export const EXIT_CODES = { done: 0, failed: 1, usage: 2, waiting: 3 } as const;

/** The exit code of a run that ended with `status`. */
export function exitCodeOfRun(status: RunStatus): number {
  if (status === "done") return EXIT_CODES.done;
  if (status === "waiting") return EXIT_CODES.waiting;
  return EXIT_CODES.failed;
}
