import { GatewayClient } from "../gateway/gateway-client.js";
import { configuredGateway } from "../workflow/connect-gateway.js";

/**
 * The models the configured key may call (`GET /models`), asked before a run makes its directory:
 * a wrong key, a model the key may not call, or only one of SVC_BASE_URL and SVC_API_KEY set, is
 * then bad input (exit 2) with nothing spent and no run directory left behind.
 * Undefined when no gateway is configured (the embedded one allows every model with its own key).
 */
export async function callableModels(
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
): Promise<readonly string[] | undefined> {
  const configured = configuredGateway({ env });
  if (configured === undefined) return undefined;
  const client = new GatewayClient({ apiKey: configured.apiKey, baseURL: configured.baseURL });
  try {
    const { models } = await client.listModels({ signal });
    return models.data.map((model) => model.id);
  } finally {
    await client.close();
  }
}
