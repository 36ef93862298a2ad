// The gateway side of batch.bench.ts, in its own process so the batch's memory is measured alone:
// the local gateway with a fixed simulated latency (argv[2], ms) on every reply.
import { startLocalGateway } from "../src/server/start-local-gateway.js";

const gateway = await startLocalGateway({ port: 0, config: { faults: { seed: 1, latencyMs: Number(process.argv[2] ?? 0) } } });
process.send?.({ baseURL: gateway.baseURL });
process.on("message", async (message) => {
  if (message !== "stop") return;
  await gateway.close();
  process.exit(0);
});
