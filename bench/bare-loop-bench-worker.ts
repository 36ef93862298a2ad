// The floor beside workflow-map.bench.ts, in a fresh process: the same N chat calls (one per item,
// the same prompt shape) sent by a bare p-queue + undici loop, CONCURRENCY in flight, each reply
// read and JSON.parsed. argv is BASE_URL ITEMS CONCURRENCY WARMUP; reports wall time and CPU time
// of the measured items (the warm-up's left out), as the map's worker does.
import PQueue from "p-queue";
import { Pool } from "undici";

const [baseURL, itemsText, concurrencyText, warmupText] = process.argv.slice(2);
const url = new URL(baseURL!);
const concurrency = Number(concurrencyText);
const pool = new Pool(url.origin, { connections: concurrency });
const headers = { authorization: "Bearer sk-local-demo", "content-type": "application/json" };

async function send(label: string): Promise<void> {
  const body = JSON.stringify({
    model: "beta-4o-mini",
    messages: [{ role: "user", content: `One line about lantern ${label}` }],
    max_tokens: 24,
  });
  const response = await pool.request({ path: `${url.pathname}/chat/completions`, method: "POST", headers, body });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}: ${text}`);
  JSON.parse(text);
}

async function drive(prefix: string, count: number): Promise<void> {
  const queue = new PQueue({ concurrency });
  for (let index = 0; index < count; index++) void queue.add(() => send(`${prefix} ${index}`));
  await queue.onIdle();
}

await drive("warm-up", Number(warmupText));
const before = process.cpuUsage();
const started = performance.now();
await drive("bare", Number(itemsText));
const wallMs = performance.now() - started;
const used = process.cpuUsage(before);
await pool.close();
process.send?.({ wallMs, cpuMs: (used.user + used.system) / 1000 });
