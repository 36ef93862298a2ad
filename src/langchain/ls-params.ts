import type { LangSmithParams } from "@langchain/core/language_models/chat_models";

/** The settings of a chat call as LangSmith reads them (`ls_*`): the model and its cost-relevant settings. */
export function lsParams(settings: {
  readonly model: string;
  readonly temperature?: number | undefined;
  readonly maxTokens?: number | undefined;
  readonly stop?: string | readonly string[] | undefined;
}): LangSmithParams {
  const { temperature, maxTokens, stop } = settings;
  return {
    ls_provider: "svc-gateway",
    ls_model_name: settings.model,
    ls_model_type: "chat",
    ...(temperature === undefined ? {} : { ls_temperature: temperature }),
    ...(maxTokens === undefined ? {} : { ls_max_tokens: maxTokens }),
    ...(stop === undefined ? {} : { ls_stop: typeof stop === "string" ? [stop] : [...stop] }),
  };
}
