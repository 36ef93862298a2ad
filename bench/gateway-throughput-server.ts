// The server side of gateway-throughput.bench.ts, run in its own process so the load generator
// does not share its event loop: `gateway` is the local gateway, `baseline` a minimal node:http
// server answering with canned bytes (the gateway's own answers, captured beforehand).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startLocalGateway } from "svc-flow/local-gateway";

/** The gateway's answers, replayed by the baseline. */
export interface Canned {
  readonly json: string;
  /** The SSE events of one streamed reply, sent back in one write as a canned server would. */
  readonly events: readonly string[];
}

const send = (message: unknown) => process.send?.(message);
const onStop = (stop: () => void) => process.on("message", (message) => message === "stop" && stop());

async function serveGateway(): Promise<void> {
  const gateway = await startLocalGateway({ port: 0 });
  send({ port: Number(new URL(gateway.rootURL).port) });
  onStop(() => void gateway.close().then(() => process.exit(0)));
}

function serveBaseline(canned: Canned): void {
  const sse = canned.events.join("");
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      // The one decision a canned server makes: stream or not.
      if (Buffer.concat(chunks).includes('"stream":true')) {
        response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
        response.end(sse);
        return;
      }
      response.writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(canned.json),
      });
      response.end(canned.json);
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, "127.0.0.1", () => {
    send({ port: (server.address() as AddressInfo).port });
    onStop(() => {
      server.closeAllConnections();
      server.close(() => process.exit(0));
    });
  });
}

// The canned answers come in the environment: an IPC message could arrive before a listener exists.
if (process.argv[2] === "gateway") await serveGateway();
else serveBaseline(JSON.parse(process.env.BENCH_CANNED ?? "{}") as Canned);
