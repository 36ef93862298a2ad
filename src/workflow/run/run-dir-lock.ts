import { randomUUID } from "node:crypto";
import { open, readFile, rename, stat, unlink, utimes } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { ConfigError } from "../../errors.js";

/** Name of the lock file that says which process owns a run directory. */
export const LOCK_FILE = "run.lock";

/** What a lock file holds. */
export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** ISO 8601: when the owner took the lock. */
  readonly startedAt: string;
  /** Tells this owner's lock from a later one in the same file. */
  readonly token: string;
}

/** Options of RunDirLock.acquire. */
export interface RunDirLockOptions {
  /** Appended to the refusal when a live process holds the directory: what to do instead. */
  readonly takenHint?: string;
  /** How often the owner touches the lock, in ms. Default 10 000. */
  readonly heartbeatMs?: number;
  /** A lock not touched for this long is stale whatever its pid says (pid reuse, another host), in ms. Default 60 000. */
  readonly staleMs?: number;
}

/** How a lock file reads to someone who wants the directory. */
export type LockState =
  | { readonly state: "free" }
  | { readonly state: "held"; readonly owner: LockOwner }
  | { readonly state: "dead"; readonly owner?: LockOwner };

const DEFAULT_HEARTBEAT_MS = 10_000;
const DEFAULT_STALE_MS = 60_000;
// A lock file created but not yet written (its owner is writing it now) is young; an empty old one is a crash.
const UNWRITTEN_GRACE_MS = 5_000;

/**
 * One owner per run directory: `run.lock` holds the owner's pid, host and start time. It is made
 * with an exclusive create; a dead owner's lock (its pid gone on this host, or not touched for
 * `staleMs`) is replaced by rename under a short-lived takeover lock, and a live one is refused
 * with `run_dir_taken`. The owner touches the file while it runs and removes it on release.
 */
export class RunDirLock {
  readonly path: string;
  readonly owner: LockOwner;
  readonly #heartbeat: NodeJS.Timeout;
  #released = false;

  private constructor(lockPath: string, owner: LockOwner, heartbeatMs: number) {
    this.path = lockPath;
    this.owner = owner;
    this.#heartbeat = setInterval(() => {
      const now = new Date();
      utimes(lockPath, now, now).catch(() => undefined);
    }, heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Takes an existing run directory, or throws `run_dir_taken` when a live process has it. */
  static async acquire(runDir: string, options: RunDirLockOptions = {}): Promise<RunDirLock> {
    const directory = path.resolve(runDir);
    if (
      !(await stat(directory).then(
        (info) => info.isDirectory(),
        () => false,
      ))
    ) {
      throw new ConfigError(`There is no run directory at ${directory}. Pass the --out of \`svc-flow run\`.`, {
        code: "invalid_run_dir",
      });
    }
    const lockPath = path.join(directory, LOCK_FILE);
    const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
    const owner: LockOwner = {
      pid: process.pid,
      host: hostname(),
      startedAt: new Date().toISOString(),
      token: randomUUID(),
    };
    for (let attempt = 0; attempt < 50; attempt++) {
      if (await createExclusive(lockPath, owner))
        return new RunDirLock(lockPath, owner, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
      const seen = await readLockState(lockPath, staleMs);
      if (seen.state === "held") throw takenError(directory, seen.owner, options.takenHint);
      if (seen.state === "dead" && (await takeOver(lockPath, seen.owner, owner, staleMs))) {
        return new RunDirLock(lockPath, owner, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
      }
      // Someone else is taking it over or just released it: look again.
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
    }
    throw new ConfigError(
      `Could not take ${directory}: its lock (${lockPath}) keeps changing hands. Try again when no other svc-flow process works on it.`,
      { code: "run_dir_taken" },
    );
  }

  /** Gives the directory up: stops the heartbeat and removes the lock if it is still this owner's. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    clearInterval(this.#heartbeat);
    const current = await readOwner(this.path);
    if (current?.token === this.owner.token) await unlink(this.path).catch(() => undefined);
  }
}

/** Reads a run directory's lock: free (no lock file), held by a live owner, or left by a dead one. */
export async function readLockState(lockPath: string, staleMs = DEFAULT_STALE_MS): Promise<LockState> {
  const info = await stat(lockPath).catch(() => undefined);
  if (info === undefined) return { state: "free" };
  const owner = await readOwner(lockPath);
  const ageMs = Date.now() - info.mtimeMs;
  if (owner === undefined)
    return ageMs > UNWRITTEN_GRACE_MS
      ? { state: "dead" }
      : { state: "held", owner: { pid: 0, host: "?", startedAt: "", token: "" } };
  if (ageMs > staleMs) return { state: "dead", owner };
  if (owner.host === hostname() && !isAlive(owner.pid)) return { state: "dead", owner };
  return { state: "held", owner };
}

/** Whether a process with this pid exists on this machine. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function createExclusive(lockPath: string, owner: LockOwner): Promise<boolean> {
  let handle;
  try {
    handle = await open(lockPath, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    await handle.writeFile(`${JSON.stringify(owner)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

// The dead lock is replaced, never removed, so an exclusive create by a newcomer cannot slip in
// between; the takeover lock keeps two takers from both replacing it.
async function takeOver(
  lockPath: string,
  dead: LockOwner | undefined,
  owner: LockOwner,
  staleMs: number,
): Promise<boolean> {
  const mutex = `${lockPath}.takeover`;
  if (!(await createExclusive(mutex, owner))) {
    const other = await readLockState(mutex, Math.min(staleMs, UNWRITTEN_GRACE_MS * 2));
    if (other.state === "dead") await unlink(mutex).catch(() => undefined);
    return false;
  }
  try {
    const current = await readOwner(lockPath);
    if (current?.token !== dead?.token) return false;
    const temporary = `${lockPath}.${owner.token}.tmp`;
    await createExclusive(temporary, owner);
    await rename(temporary, lockPath);
    return (await readOwner(lockPath))?.token === owner.token;
  } finally {
    const held = await readOwner(mutex);
    if (held?.token === owner.token) await unlink(mutex).catch(() => undefined);
  }
}

async function readOwner(lockPath: string): Promise<LockOwner | undefined> {
  try {
    const value = JSON.parse(await readFile(lockPath, "utf8")) as Partial<LockOwner>;
    if (typeof value.pid !== "number" || typeof value.host !== "string" || typeof value.token !== "string")
      return undefined;
    return { pid: value.pid, host: value.host, startedAt: String(value.startedAt ?? ""), token: value.token };
  } catch {
    return undefined;
  }
}

function takenError(directory: string, owner: LockOwner, hint: string | undefined): ConfigError {
  const who =
    owner.pid > 0
      ? `process ${owner.pid} on ${owner.host}${owner.startedAt ? `, since ${owner.startedAt}` : ""}`
      : "a process that is taking it now";
  return new ConfigError(
    `${directory} is in use by ${who}. Wait for it to finish (svc-flow runs shows it as running), or stop that process first; ` +
      `a lock left by a process that died is taken over on its own.${hint ? ` ${hint}` : ""}`,
    { code: "run_dir_taken" },
  );
}
