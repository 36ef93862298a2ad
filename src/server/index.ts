// The local gateway's public surface; src/index.ts re-exports what users need.
export { startLocalGateway } from "./start-local-gateway.js";
export type { LocalGateway, LocalGatewayOptions } from "./start-local-gateway.js";
export { DEMO_KEY, gatewayConfigSchema } from "./config.js";
export type { GatewayConfig, GatewayConfigInput, KeyConfig, ModelFault } from "./config.js";
export { loadGatewayConfig, parseGatewayConfig } from "./load-gateway-config.js";
export { API_VERSION } from "./describe-route.js";
export type { BilledEntry, GatewayStats, KeyStats } from "./billing.js";
export { DIALECT_NAMES, DIALECTS } from "./dialects/index.js";
export type { Dialect, DialectName, DialectSetting, ReplyParts } from "./dialects/index.js";
