// An HTTP forwarder in front of the local gateway that tells a test the moment a chat call has reached the
// gateway and the moment the gateway has answered it, so a test that must act between the two (freeze the
// process that sent the call) waits on those events instead of polling the gateway's counters against a clock.
import { once } from "node:events";
import { createServer, request as forward } from "node:http";
import type { Socket } from "node:net";
import type { LocalGateway } from "../src/server/start-local-gateway.js";

/** A running forwarder; clients use `baseURL` in place of the gateway's. */
export interface GatewayCallWatch {
  /** `http://127.0.0.1:PORT/v1`. */
  readonly baseURL: string;
  /** Resolves once the `n`th chat call (counting from 1) has been handed to the gateway whole. */
  sent(n: number): Promise<void>;
  /** Resolves once the gateway's whole answer to the `n`th chat call has come back (it bills before it answers). */
  answered(n: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a forwarder to `gateway` on a free port of 127.0.0.1. */
export async function startGatewayCallWatch(gateway: Pick<LocalGateway, "rootURL">): Promise<GatewayCallWatch> {
  const target = new URL(gateway.rootURL);
  const sent = new Milestones();
  const answered = new Milestones();
  let calls = 0;
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    const call = request.method === "POST" && request.url?.endsWith("/chat/completions") === true ? ++calls : 0;
    const upstream = forward(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers: request.headers },
      (reply) => {
        response.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(response);
        if (call > 0) reply.on("end", () => answered.reach(call));
      },
    );
    upstream.on("error", () => response.destroy());
    if (call > 0) upstream.on("finish", () => sent.reach(call));
    request.pipe(upstream);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    // The client may be killed mid-answer.
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("The forwarder has no port.");
  return {
    baseURL: `http://127.0.0.1:${address.port}/v1`,
    sent: (n) => sent.at(n),
    answered: (n) => answered.at(n),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// Numbered events, each awaitable before or after it happens.
class Milestones {
  readonly #reached = new Set<number>();
  readonly #waiting = new Map<number, (() => void)[]>();

  reach(n: number): void {
    this.#reached.add(n);
    for (const resolve of this.#waiting.get(n) ?? []) resolve();
    this.#waiting.delete(n);
  }

  at(n: number): Promise<void> {
    if (this.#reached.has(n)) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.set(n, [...(this.#waiting.get(n) ?? []), resolve]));
  }
}
