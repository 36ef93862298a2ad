import { stat } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../../errors.js";
import { isArtifactRef } from "../media/media-source.js";
import { LOCK_FILE, readLockState } from "./run-dir-lock.js";
import type { JournalRecord, RecordOf } from "./journal-records.js";
import { forEachJournalRecord } from "./run-journal.js";
import { JOURNAL_FILE } from "./start-run-directory.js";

/** A finished step of an earlier run that a new run can take instead of running it. */
export interface FinishedStep {
  /** The step's output as journaled (artifacts by reference). */
  readonly output: unknown;
  /** The artifact files the output refers to, relative to `runDir` (`artifacts/<sha256>.<ext>`). */
  readonly artifacts: readonly string[];
  /** The run directory it finished in (absolute), and that run's id. */
  readonly runDir: string;
  readonly runId: string;
  /** The step instance there, e.g. `posters[1].draft`, its id and kind. */
  readonly key: string;
  readonly id: string;
  readonly kind: string;
  /** What it cost there (yuan; 0 when it was itself reused), and whether a call of it was unpriced. */
  readonly costYuan: number;
  readonly unpriced: boolean;
}

const ARTIFACT_PATH = /^artifacts\/[0-9a-f]{64}\.[a-z0-9]+$/;

/**
 * The finished leaf steps of the given run directories, by step key (step-key.ts). Read only: no
 * lock is taken and nothing is written. A directory that is no run directory, or that a live run holds
 * (its results may still change), is a ConfigError before anything is spent. Approval steps are left
 * out (a person answers again), and so are steps whose artifacts are missing. Where two runs have the
 * same key, the first directory named wins.
 */
export async function finishedStepsByKey(runDirs: readonly string[]): Promise<Map<string, FinishedStep>> {
  const found = new Map<string, FinishedStep>();
  for (const given of runDirs) {
    const runDir = path.resolve(given);
    await checkReusable(runDir);
    let first: JournalRecord | undefined;
    const records: Array<RecordOf<"step-finished">> = [];
    await forEachJournalRecord(path.join(runDir, JOURNAL_FILE), (record) => {
      first ??= record;
      if (record.type === "step-finished" && record.stepKey !== undefined && record.kind !== "approval")
        records.push(record);
    });
    if (first?.type !== "run-started") {
      throw new ConfigError(`${runDir} holds no run: its journal does not start with a run. Name another --reuse.`, {
        code: "invalid_run_dir",
      });
    }
    for (const record of records) {
      if (record.stepKey === undefined || found.has(record.stepKey)) continue;
      const artifacts = artifactPaths(record.output);
      if (!(await allExist(runDir, artifacts))) continue;
      found.set(record.stepKey, {
        output: record.output,
        artifacts,
        runDir,
        runId: first.runId,
        key: record.key,
        id: record.id,
        kind: record.kind,
        costYuan: record.costYuan,
        unpriced: record.unpriced,
      });
    }
  }
  return found;
}

/** Throws unless `runDir` holds a run journal and no live process is writing it. */
export async function checkReusable(runDir: string): Promise<void> {
  const journal = path.join(runDir, JOURNAL_FILE);
  const isFile = await stat(journal).then(
    (info) => info.isFile(),
    () => false,
  );
  if (!isFile) {
    throw new ConfigError(
      `${runDir} is not a run directory (it has no ${JOURNAL_FILE}). Name the --out of an earlier \`svc-flow run\` to reuse.`,
      { code: "invalid_run_dir" },
    );
  }
  const lock = await readLockState(path.join(runDir, LOCK_FILE));
  if (lock.state === "held") {
    const who = lock.owner.pid > 0 ? `process ${lock.owner.pid} on ${lock.owner.host}` : "another process";
    throw new ConfigError(
      `${runDir} is still being written by a live run (${who}), so its results may change. Wait for it to finish, then reuse it.`,
      { code: "run_dir_taken" },
    );
  }
}

/** The artifact files a value refers to (`artifacts/<sha256>.<ext>`, as a reference or a path), each once. */
export function artifactPaths(value: unknown): string[] {
  const paths = new Set<string>();
  const visit = (item: unknown): void => {
    if (typeof item === "string") {
      if (ARTIFACT_PATH.test(item)) paths.add(item);
    } else if (Array.isArray(item)) {
      for (const element of item) visit(element);
    } else if (item !== null && typeof item === "object") {
      if (isArtifactRef(item) && ARTIFACT_PATH.test(item.artifact)) paths.add(item.artifact);
      for (const element of Object.values(item)) visit(element);
    }
  };
  visit(value);
  return [...paths];
}

async function allExist(runDir: string, artifacts: readonly string[]): Promise<boolean> {
  for (const artifact of artifacts) {
    const exists = await stat(path.join(runDir, artifact)).then(
      (info) => info.isFile(),
      () => false,
    );
    if (!exists) return false;
  }
  return true;
}
