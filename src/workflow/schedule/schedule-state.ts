import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../../errors.js";
import { writeJsonFile } from "../run/write-run-files.js";

/** The scheduler's state file inside the runs directory. */
export const SCHEDULE_STATE_FILE = ".schedule-state.json";

const stateSchema = z.object({
  version: z.literal(1),
  jobs: z.record(z.string(), z.object({ lastScheduledAt: z.iso.datetime() })),
});

/**
 * What the scheduler remembers across restarts: per workflow, the last cron time it handled (fired,
 * skipped or queued), so a restart can tell which firings it missed. Writes are atomic and serial.
 */
export class ScheduleState {
  readonly file: string;
  readonly #last = new Map<string, number>();
  #writing: Promise<void> = Promise.resolve();
  #writeError: unknown;

  private constructor(file: string) {
    this.file = file;
  }

  /** Reads the state file in `runsDir` (made if missing); a missing file is an empty state. */
  static async load(runsDir: string): Promise<ScheduleState> {
    await mkdir(runsDir, { recursive: true });
    const state = new ScheduleState(join(runsDir, SCHEDULE_STATE_FILE));
    let text: string;
    try {
      text = await readFile(state.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return state;
      throw error;
    }
    const parsed = stateSchema.safeParse(safeJson(text));
    if (!parsed.success) {
      throw new ConfigError(
        `${state.file} is not a schedule state file. Delete it to start afresh (missed firings are then forgotten).`,
      );
    }
    for (const [name, job] of Object.entries(parsed.data.jobs)) state.#last.set(name, Date.parse(job.lastScheduledAt));
    return state;
  }

  /** The last cron time handled for `name` (epoch ms), if any. */
  lastScheduledAt(name: string): number | undefined {
    return this.#last.get(name);
  }

  /** Records that `name`'s firing at `timeMs` was handled, and saves (in the background; see `flush`). */
  record(name: string, timeMs: number): void {
    if ((this.#last.get(name) ?? -Infinity) >= timeMs) return;
    this.#last.set(name, timeMs);
    const snapshot = this.#serialize();
    // Kept, not thrown here: a failed write must not become an unhandled rejection between flushes.
    this.#writing = this.#writing
      .then(() => writeJsonFile(this.file, snapshot))
      .catch((error: unknown) => {
        this.#writeError = error;
      });
  }

  /** Resolves once every recorded change is on disk; throws the last write error, if any. */
  async flush(): Promise<void> {
    await this.#writing;
    if (this.#writeError !== undefined) throw this.#writeError;
  }

  #serialize(): z.infer<typeof stateSchema> {
    const jobs = Object.fromEntries(
      [...this.#last].map(([name, time]) => [name, { lastScheduledAt: new Date(time).toISOString() }]),
    );
    return { version: 1, jobs };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
