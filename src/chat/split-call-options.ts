import { ensureConfig, type RunnableConfig } from "@langchain/core/runnables";

// The keys LangChain's _separateRunnableConfigFromCallOptions takes out of a model's call options.
const CONFIG_KEYS = new Set(["callbacks", "tags", "metadata", "runName", "configurable", "recursionLimit", "maxConcurrency", "runId", "timeout", "signal"]);

/**
 * A call's options split as LangChain's `_separateRunnableConfigFromCallOptionsCompat` splits them,
 * for the direct paths of `ChatGateway`: the runnable config as `ensureConfig` gives it (with any
 * config inherited from the calling run, a timeout turned into the signal, and the call options'
 * keys left in), and the call options with that signal. Built by copying rather than by LangChain's
 * spread and ten deletes, which turn the options into a slow dictionary object read on every
 * request, and without its second ensureConfig. The call options come from the ensured config, as
 * in LangChain's stream (its invoke takes them from the options as given: the two differ only by
 * call options in the config of an enclosing run, which LangChain's runnables do not hand down).
 */
export function splitCallOptions<O extends { signal?: AbortSignal }>(options: Partial<O> | undefined): [RunnableConfig, O] {
  const config = ensureConfig(options as RunnableConfig | undefined);
  const callOptions: Record<string, unknown> = {};
  for (const key in config) if (!CONFIG_KEYS.has(key)) callOptions[key] = (config as Record<string, unknown>)[key];
  callOptions.signal = config.signal;
  return [config, callOptions as O];
}
