// The gateway side of batch.bench.ts, in its own process so the batch's memory is measured alone:
// the local gateway with a fixed simulated latency (argv[2], ms) on every reply. beta-4o answers
// about a fifth of its requests with a 429 (Retry-After 10 ms), for chat-client.bench.ts's retry case.
import { startLocalGateway } from "svc-flow/local-gateway";

const faults = {
  seed: 1,
  latencyMs: Number(process.argv[2] ?? 0),
  models: { "beta-4o": { rateLimitRate: 0.2, retryAfterS: 0.01 } },
};
const gateway = await startLocalGateway({ port: 0, config: { faults } });
process.send?.({ baseURL: gateway.baseURL });
process.on("message", async (message) => {
  if (message !== "stop") return;
  await gateway.close();
  process.exit(0);
});
