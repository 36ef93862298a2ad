import { GatewayClient } from "../gateway/gateway-client.js";

/**
 * The models the configured key may call (`GET /models`), asked before a run makes its directory:
 * a wrong key, or a model the key may not call, is then bad input (exit 2) with nothing spent.
 * Undefined when no gateway is configured (the embedded one allows every model with its own key).
 */
export async function callableModels(
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
): Promise<readonly string[] | undefined> {
  const baseURL = env.SVC_BASE_URL;
  const apiKey = env.SVC_API_KEY;
  if (baseURL === undefined || baseURL === "" || apiKey === undefined || apiKey === "") return undefined;
  const client = new GatewayClient({ apiKey, baseURL });
  try {
    const { models } = await client.listModels({ signal });
    return models.data.map((model) => model.id);
  } finally {
    await client.close();
  }
}
