import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isLoopbackHost } from "../net/is-loopback-host.js";
import type { GatewayStats } from "./billing.js";
import type { GatewayConfig, GatewayConfigInput } from "./config.js";
import { effectiveKeys } from "./config.js";
import { GatewayContext } from "./gateway-context.js";
import { keepGatewayState } from "./gateway-state.js";
import { createRequestHandler } from "./handle-request.js";
import { parseGatewayConfig } from "./load-gateway-config.js";
import { declaresTooLarge, sendTooLarge } from "./read-json-body.js";
import { assignRequestIds } from "./request-ids.js";

/** Options of `startLocalGateway`. */
export interface LocalGatewayOptions {
  /** Port to listen on; default 0 (a free port). */
  readonly port?: number;
  /** Interface to bind; default 127.0.0.1. */
  readonly host?: string;
  /** Fetch images that chat requests link from loopback, private, link-local and other non-public addresses.
   * Default: true when `host` is loopback, false otherwise. */
  readonly allowPrivateImageURLs?: boolean;
  /** The config object (DESIGN.md section 3); default: one key sk-local-demo, no limits. */
  readonly config?: GatewayConfigInput;
  /** A folder to keep music jobs, stored idempotent responses and bills in, so a gateway started
   * later on the same folder carries on where this one stopped. Default: none (all in memory). */
  readonly stateDir?: string;
}

/** A running local gateway. */
export interface LocalGateway {
  /** `http://host:port/v1`, for SVC_BASE_URL or any chat-completions client's baseURL. */
  readonly baseURL: string;
  /** `http://host:port`, the root of the music interface. */
  readonly rootURL: string;
  /** The config in effect, defaults applied. */
  readonly config: GatewayConfig;
  /** What was billed and counted, per key. */
  stats(): GatewayStats;
  /** Stops listening and cuts open connections. */
  close(): Promise<void>;
}

/** Starts the local gateway: the spec's interface over simulated models, on 127.0.0.1. */
export async function startLocalGateway(options: LocalGatewayOptions = {}): Promise<LocalGateway> {
  const config = parseGatewayConfig(options.config ?? {});
  const host = options.host ?? "127.0.0.1";
  // On loopback only programs on this machine can send a link, and they reach its private addresses
  // themselves anyway (tests and workflows link images served on 127.0.0.1). Bound to a wider interface, a link to
  // 169.254.169.254 or an internal service would make the gateway a request-forgery proxy for
  // whoever reaches it, so private addresses are refused unless the caller opts in.
  const allowPrivateImageURLs = options.allowPrivateImageURLs ?? isLoopbackHost(host);
  const context = new GatewayContext(config, { allowPrivateImageURLs });
  if (options.stateDir !== undefined)
    keepGatewayState(
      context,
      options.stateDir,
      effectiveKeys(config).map((key) => key.key),
    );
  const handler = createRequestHandler(context);
  const server = createServer({ keepAliveTimeout: 65_000 }, handler);
  // An oversized upload announced with `Expect: 100-continue` (curl does this) is refused before
  // the client sends a byte of it.
  server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => {
    if (declaresTooLarge(request, config.limits.maxBodyBytes)) {
      assignRequestIds(response);
      response.setHeader("connection", "close");
      sendTooLarge(response, config.limits.maxBodyBytes);
      return;
    }
    response.writeContinue();
    handler(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const rootURL = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  context.rootURL = rootURL;
  let closing: Promise<void> | undefined;
  return {
    baseURL: `${rootURL}/v1`,
    rootURL,
    config,
    stats: () => context.stats(),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        context.music.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
