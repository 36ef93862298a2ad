// The floor beside workflow-map.bench.ts, in a fresh process: the same N chat calls (one per item,
// the same prompt shape) sent by a bare p-queue + undici loop, CONCURRENCY in flight, each reply
// read and JSON.parsed. With JOURNAL "journal", each call is also journaled as a run that pays
// nothing twice must at the least: an intent line written before the send, a bill line after the
// reply, each line one write, the fsyncs grouped (one at a time, each covering every line written
// before it starts).
// argv is BASE_URL ITEMS CONCURRENCY WARMUP [JOURNAL]; reports wall time and CPU time of the
// measured items (the warm-up's left out), as the map's worker does.
import { fsync, openSync, writeSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import PQueue from "p-queue";
import { Pool } from "undici";

const [baseURL, itemsText, concurrencyText, warmupText, journalMode] = process.argv.slice(2);
const url = new URL(baseURL!);
const concurrency = Number(concurrencyText);
const pool = new Pool(url.origin, { connections: concurrency });
const headers = { authorization: "Bearer sk-local-demo", "content-type": "application/json" };

/** A group-committed append-only file: `append` writes a line now and resolves once an fsync covers it. */
class Journal {
  readonly #fd: number;
  #waiting: Array<() => void> = [];
  #syncing = false;

  constructor(file: string) {
    this.#fd = openSync(file, "a");
  }

  append(record: object): Promise<void> {
    writeSync(this.#fd, `${JSON.stringify(record)}\n`);
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#sync();
    });
  }

  #sync(): void {
    if (this.#syncing || this.#waiting.length === 0) return;
    this.#syncing = true;
    const covered = this.#waiting;
    this.#waiting = [];
    fsync(this.#fd, (error) => {
      if (error) throw error;
      this.#syncing = false;
      for (const resolve of covered) resolve();
      this.#sync();
    });
  }
}

const dir = journalMode === "journal" ? await mkdtemp(join(tmpdir(), "svc-flow-bare-journal-")) : undefined;
const journal = dir === undefined ? undefined : new Journal(join(dir, "journal.jsonl"));
const durable: Array<Promise<void>> = [];
const now = () => new Date().toISOString();

interface Reply {
  readonly model: string;
  readonly usage: unknown;
  readonly choices: ReadonlyArray<{ readonly message: { readonly content: string } }>;
}

async function send(label: string): Promise<void> {
  const body = JSON.stringify({
    model: "beta-4o-mini",
    messages: [{ role: "user", content: `One line about lantern ${label}` }],
    max_tokens: 24,
  });
  const key = `bare-${label}`;
  if (journal) durable.push(journal.append({ type: "call-intent", key, model: "beta-4o-mini", at: now() }));
  const response = await pool.request({ path: `${url.pathname}/chat/completions`, method: "POST", headers, body });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}: ${text}`);
  const reply = JSON.parse(text) as Reply;
  if (journal) {
    const output = reply.choices[0]?.message.content;
    durable.push(journal.append({ type: "cost", key, model: reply.model, usage: reply.usage, output, at: now() }));
  }
}

async function drive(prefix: string, count: number): Promise<void> {
  const queue = new PQueue({ concurrency });
  for (let index = 0; index < count; index++) void queue.add(() => send(`${prefix} ${index}`));
  await queue.onIdle();
  await Promise.all(durable.splice(0));
}

await drive("warm-up", Number(warmupText));
const before = process.cpuUsage();
const started = performance.now();
await drive("bare", Number(itemsText));
const wallMs = performance.now() - started;
const used = process.cpuUsage(before);
await pool.close();
if (dir !== undefined) await rm(dir, { recursive: true, force: true });
process.send?.({ wallMs, cpuMs: (used.user + used.system) / 1000 });
