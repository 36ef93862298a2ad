import { ConfigError } from "../errors.js";

/** A gateway to send a run's calls to. */
export interface GatewayConnection {
  /** The versioned root, ending in `/v1`. */
  readonly baseURL: string;
  readonly apiKey: string;
  /** True when this is a local gateway started for the caller (simulated models). */
  readonly local: boolean;
  /** Stops the local gateway, if one was started; otherwise does nothing. */
  close(): Promise<void>;
}

/** Where to find the gateway; each field falls back to the environment. */
export interface ConnectGatewayOptions {
  /** Default: `SVC_BASE_URL`. */
  readonly baseURL?: string;
  /** Default: `SVC_API_KEY`. */
  readonly apiKey?: string;
  /** Default: `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Receives the one line that says a local gateway was started. Default: stderr. */
  readonly notice?: (line: string) => void;
  /** Where a local gateway started for the caller keeps its state (a run passes its run directory). */
  readonly stateDir?: string;
}

/** Opens the gateway a run talks to. The composition root's version starts a local gateway when none is configured. */
export type ConnectGateway = (options: ConnectGatewayOptions) => Promise<GatewayConnection>;

/**
 * The given or configured gateway (SVC_BASE_URL and SVC_API_KEY); undefined when neither is set,
 * a ConfigError when only one is.
 */
export function configuredGateway(options: ConnectGatewayOptions = {}): GatewayConnection | undefined {
  const env = options.env ?? process.env;
  const baseURL = options.baseURL ?? nonEmpty(env.SVC_BASE_URL);
  const apiKey = options.apiKey ?? nonEmpty(env.SVC_API_KEY);
  if (baseURL !== undefined) {
    if (apiKey === undefined)
      throw new ConfigError(
        options.baseURL === undefined
          ? "SVC_BASE_URL is set but SVC_API_KEY is not. Set SVC_API_KEY to your gateway key, or unset SVC_BASE_URL to use the local gateway."
          : "SVC_API_KEY is not set. Pass apiKey or set SVC_API_KEY.",
        { code: "missing_api_key" },
      );
    return { baseURL, apiKey, local: false, close: async () => undefined };
  }
  if (apiKey !== undefined) {
    throw new ConfigError(
      "SVC_API_KEY is set but SVC_BASE_URL is not. Set SVC_BASE_URL to the gateway's /v1 root, or unset SVC_API_KEY to use the local gateway.",
      { code: "missing_base_url" },
    );
  }
  return undefined;
}

/** The given or configured gateway; with neither set, a ConfigError that names both ways out. */
export async function connectConfiguredGateway(options: ConnectGatewayOptions = {}): Promise<GatewayConnection> {
  const connection = configuredGateway(options);
  if (connection !== undefined) return connection;
  throw new ConfigError(
    'SVC_BASE_URL is not set. Set SVC_BASE_URL and SVC_API_KEY, or use runWorkflow from "svc-flow", which starts a local gateway with simulated models.',
    { code: "missing_base_url" },
  );
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
