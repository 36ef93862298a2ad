import { createHash } from "node:crypto";
import type { MusicClient, MusicClipsResult } from "../../src/gateway/music-client.js";

/** A music job a tool call started: its clip ids and the request id of the call that paid for it. */
export interface LoggedMusicJob {
  readonly clipIds: readonly string[];
  readonly requestId?: string;
}

/**
 * Where a music tool keeps the jobs it starts, so that the same call in a later execution of the same
 * work (a resumed workflow step) finds the job it paid for instead of paying again: the run journal.
 */
export interface MusicJobLog {
  /** The job kept for `call` (the last one), if any. */
  find(call: string): LoggedMusicJob | undefined;
  /** Sends `start`, one billed call that starts a job, and keeps the job under `call` with the call's bill; resolves once kept. */
  submit(
    operation: string,
    call: string,
    start: (music: MusicClient) => Promise<MusicClipsResult>,
  ): Promise<LoggedMusicJob>;
}

/**
 * The name a music call is kept under: its operation and a digest of its input. It is a function of
 * the request body, as the digest in a workflow's Idempotency-Key is, so a call finds a job exactly
 * when the gateway would replay it.
 */
export function musicCallName(operation: string, input: Readonly<Record<string, unknown>>): string {
  const digest = createHash("sha256").update(JSON.stringify(input)).digest("hex").slice(0, 16);
  return `${operation}:${digest}`;
}
