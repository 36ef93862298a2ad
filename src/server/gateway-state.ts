import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { BilledEntry } from "./billing.js";
import type { GatewayContext } from "./gateway-context.js";
import type { StoredResponse } from "./idempotency-store.js";
import type { KeyAccount } from "./key-account.js";
import type { MusicJobRecord } from "./music-store.js";
import { withRender } from "./plan-music-job.js";

/** The file in a state folder that keeps what a local gateway billed, stored and submitted. */
export const GATEWAY_STATE_FILE = "gateway-state.jsonl";

type StateRecord =
  | { readonly type: "billed"; readonly key: string; readonly entry: BilledEntry }
  | {
      readonly type: "stored";
      readonly key: string;
      readonly idempotencyKey: string;
      readonly fingerprint: string;
      readonly response: StoredResponse;
      readonly expiresAt: number;
    }
  | { readonly type: "music-job"; readonly key: string; readonly job: MusicJobRecord };

/**
 * Keeps a local gateway's state in a folder, so the next gateway started on it (a resumed run's,
 * or `svc-flow music --clips`) knows the music jobs, replays stored responses and carries the
 * bills. Reads what is there, then appends one line per bill, stored response and music job,
 * synchronously: a process killed right after a response still has it written down. Accounts are
 * named by a hash of their key, never the key.
 */
export function keepGatewayState(context: GatewayContext, stateDir: string, keys: readonly string[]): void {
  mkdirSync(stateDir, { recursive: true });
  const file = path.join(stateDir, GATEWAY_STATE_FILE);
  const accounts = new Map<string, KeyAccount>();
  for (const key of keys) {
    const account = context.keys.find(key);
    if (account) accounts.set(accountId(key), account);
  }
  const records = readRecords(file);
  // Bills first: a failed music job's refund, replayed when the job is restored, finds its bill.
  for (const record of records) if (record.type === "billed") accounts.get(record.key)?.restoreBilled(record.entry);
  for (const record of records) {
    const account = accounts.get(record.key);
    if (!account) continue;
    if (record.type === "stored") context.idempotency.restore(account, record.idempotencyKey, record);
    if (record.type === "music-job")
      context.music.restore(account, record.job, (data) => withRender(data, account, context.music));
  }
  const append = (record: StateRecord) => appendFileSync(file, `${JSON.stringify(record)}\n`);
  for (const [id, account] of accounts) {
    account.onBilled = (entry) => append({ type: "billed", key: id, entry });
  }
  const idOf = (account: KeyAccount) => [...accounts].find(([, candidate]) => candidate === account)?.[0];
  context.idempotency.onStored = (account, idempotencyKey, record) => {
    const key = idOf(account);
    if (key !== undefined) append({ type: "stored", key, idempotencyKey, ...record });
  };
  context.music.onSubmitted = (account, job) => {
    const key = idOf(account);
    if (key !== undefined) append({ type: "music-job", key, job });
  };
}

function accountId(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

// A line cut short by a kill is the last one, and is skipped.
function readRecords(file: string): StateRecord[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const records: StateRecord[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      records.push(JSON.parse(line) as StateRecord);
    } catch {
      // The torn tail of a killed gateway.
    }
  }
  return records;
}
