import type { GatewayConfig } from "./config.js";
import type { LocalGateway, LocalGatewayOptions } from "./start-local-gateway.js";

// The package root's entry to the local gateway: the server (routes, billing, simulated models) is
// loaded when a gateway is first started, so `import "svc-flow"` does not pay for it.
// svc-flow/local-gateway exports the same functions directly.

/** Starts the local gateway: the spec's interface over simulated models, on 127.0.0.1. */
export async function startLocalGateway(options: LocalGatewayOptions = {}): Promise<LocalGateway> {
  const server = await import("./start-local-gateway.js");
  return server.startLocalGateway(options);
}

/** Reads a YAML or JSON config file; errors name the file, the line and the path. */
export async function loadGatewayConfig(file: string): Promise<GatewayConfig> {
  const loader = await import("./load-gateway-config.js");
  return loader.loadGatewayConfig(file);
}
