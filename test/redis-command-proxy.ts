// A TCP proxy in front of a real redis-server that sees each command a client sends and can hold it
// back, so a test can make a worker process die at an exact point between two of its Redis writes.
import { once } from "node:events";
import { createConnection, createServer, type Socket } from "node:net";

/** What becomes of one command: sent on to Redis, or dropped with everything after it on that connection. */
export type CommandVerdict = "forward" | "drop";

/** A running proxy; clients connect to `url`. */
export interface RedisCommandProxy {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts a proxy to `targetURL` that asks `decide` about every command, in the order each client
 * sent them. Replies flow back untouched. Once a connection drops a command it forwards nothing
 * more: Redis answers in order, so a later command would get a reply meant for another.
 */
export async function startRedisCommandProxy(
  targetURL: string,
  decide: (command: readonly string[]) => CommandVerdict,
): Promise<RedisCommandProxy> {
  const target = new URL(targetURL);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    let pending = Buffer.alloc(0);
    let dropping = false;
    client.on("data", (chunk: Buffer) => {
      if (dropping) return;
      pending = Buffer.concat([pending, chunk]);
      for (let command = readCommand(pending); command !== undefined; command = readCommand(pending)) {
        const raw = pending.subarray(0, command.length);
        pending = pending.subarray(command.length);
        if (decide(command.args) === "drop") {
          dropping = true;
          return;
        }
        upstream.write(raw);
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("The proxy has no port.");
  return {
    url: `redis://127.0.0.1:${address.port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// One RESP command (an array of bulk strings, as ioredis sends every command) from the start of
// `buffer`, with its length in bytes; undefined while it has not fully arrived.
function readCommand(buffer: Buffer): { args: string[]; length: number } | undefined {
  let offset = 0;
  const line = (): string | undefined => {
    const end = buffer.indexOf("\r\n", offset);
    if (end < 0) return undefined;
    const text = buffer.toString("latin1", offset, end);
    offset = end + 2;
    return text;
  };
  const header = line();
  if (header === undefined) return undefined;
  if (!header.startsWith("*")) throw new Error(`Expected a RESP array, got ${JSON.stringify(header)}.`);
  const args: string[] = [];
  for (let count = Number(header.slice(1)); args.length < count; ) {
    const size = line();
    if (size === undefined) return undefined;
    const length = Number(size.slice(1));
    if (buffer.length < offset + length + 2) return undefined;
    args.push(buffer.toString("utf8", offset, offset + length));
    offset += length + 2;
  }
  return { args, length: offset };
}
