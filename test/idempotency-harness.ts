// Shared by test/idempotency-*.test.ts: a TCP proxy that loses a billed answer on its way back,
// and a dispatcher that records the headers of what was sent.
import { once } from "node:events";
import { createServer, connect, type AddressInfo, type Socket } from "node:net";
import { Agent, type Dispatcher } from "undici";
import type { LocalGateway } from "../src/server/index.js";

/** A proxy in front of a gateway; `cutNext` loses the answers of the next connections. */
export interface CuttingProxy {
  readonly baseURL: string;
  readonly rootURL: string;
  /**
   * The next `count` new connections are cut as soon as the gateway answers, i.e. after it billed:
   * with `keepHead`, the client gets the response head (status, headers) and then a cut.
   */
  cutNext(count: number, options?: { keepHead?: boolean }): void;
  /** Connections cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

/** Starts a cutting proxy on 127.0.0.1 in front of `gateway`. */
export async function startCuttingProxy(gateway: LocalGateway): Promise<CuttingProxy> {
  const target = new URL(gateway.rootURL);
  const sockets = new Set<Socket>();
  let pending: Array<{ keepHead: boolean }> = [];
  let cuts = 0;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    const cut = pending.shift();
    const destroyBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", destroyBoth).on("close", () => upstream.destroy());
    upstream.on("error", destroyBoth).on("close", () => client.destroy());
    client.pipe(upstream);
    if (cut === undefined) {
      upstream.pipe(client);
      return;
    }
    let head = Buffer.alloc(0);
    upstream.on("data", (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (cut.keepHead && end === -1) return;
      cuts++;
      upstream.pause();
      if (cut.keepHead) client.write(head.subarray(0, end + 4), destroyBoth);
      else destroyBoth();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const rootURL = `http://127.0.0.1:${port}`;
  return {
    baseURL: `${rootURL}/v1`,
    rootURL,
    cutNext: (count, options = {}) => {
      pending = [...pending, ...Array.from({ length: count }, () => ({ keepHead: options.keepHead === true }))];
    },
    get cuts() {
      return cuts;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A dispatcher that records the headers of every POST sent through it. */
export function recordingDispatcher(): {
  dispatcher: Dispatcher;
  sent: Array<Record<string, string>>;
  close: () => Promise<void>;
} {
  const agent = new Agent();
  const sent: Array<Record<string, string>> = [];
  const dispatcher = agent.compose((dispatch) => (options, handler) => {
    if (options.method === "POST") sent.push({ ...(options.headers as Record<string, string>) });
    return dispatch(options, handler);
  });
  return { dispatcher, sent, close: () => agent.close() };
}

/** Billed entries of the gateway's first key (the demo key unless configured). */
export function billedOf(gateway: LocalGateway, keyIndex = 0) {
  return gateway.stats().keys[keyIndex]!.billed;
}
