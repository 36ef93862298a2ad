import { ConfigError } from "../errors.js";
import { DEMO_KEY, startLocalGateway } from "../server/index.js";

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
}

/**
 * The one place that decides which gateway a command talks to: the given or configured one
 * (SVC_BASE_URL and SVC_API_KEY), or, when neither is set, a local gateway started in-process with
 * simulated models, announced in one line.
 */
export async function connectGateway(options: ConnectGatewayOptions = {}): Promise<GatewayConnection> {
  const env = options.env ?? process.env;
  const baseURL = options.baseURL ?? nonEmpty(env.SVC_BASE_URL);
  const apiKey = options.apiKey ?? nonEmpty(env.SVC_API_KEY);
  if (baseURL !== undefined) {
    if (apiKey === undefined) throw new ConfigError("SVC_API_KEY is not set. Pass apiKey or set SVC_API_KEY.", { code: "missing_api_key" });
    return { baseURL, apiKey, local: false, close: async () => undefined };
  }
  if (apiKey !== undefined) {
    throw new ConfigError(
      "SVC_API_KEY is set but SVC_BASE_URL is not. Set SVC_BASE_URL to the gateway's /v1 root, or unset SVC_API_KEY to use the local gateway.",
      { code: "missing_base_url" },
    );
  }
  const gateway = await startLocalGateway({ port: 0 });
  const notice = options.notice ?? ((line: string) => process.stderr.write(`${line}\n`));
  notice(`svc-flow: SVC_BASE_URL is not set; using a local gateway with simulated models at ${gateway.baseURL}`);
  return { baseURL: gateway.baseURL, apiKey: DEMO_KEY, local: true, close: () => gateway.close() };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
