// The public API of svc-flow: named exports only.
export { catalog } from "./catalog/index.js";
export type { Capabilities, Family, ModelInfo, ParameterRules, Tier } from "./catalog/models.js";
export { PUBLISHED_PRICES, mergePrices } from "./catalog/prices.js";
export type { MusicOperation, PriceOverrides, PriceTable, TokenPrice, UnitPrice } from "./catalog/prices.js";
export {
  AbortedError,
  AuthenticationError,
  BadRequestError,
  BudgetExceededError,
  ConfigError,
  ContextWindowError,
  EmptyOutputError,
  KeyDeactivatedError,
  NotOfferedError,
  ParameterError,
  QuotaExceededError,
  RateLimitError,
  StreamError,
  SvcFlowError,
  TimeoutError,
  UnknownModelError,
  UpstreamError,
} from "./errors.js";
export type { GatewayIds } from "./errors.js";
export { startLocalGateway, loadGatewayConfig } from "./server/index.js";
export type { GatewayConfigInput, GatewayStats, LocalGateway, LocalGatewayOptions } from "./server/index.js";
