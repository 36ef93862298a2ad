import type { ModelProfile } from "@langchain/core/language_models/profile";
import type { ModelInfo } from "../catalog/models.js";

/** What a model takes and gives, from the catalogue, as LangChain's profile (agents read it). */
export function modelProfile(info: ModelInfo): ModelProfile {
  const { capabilities } = info;
  return {
    ...(info.contextWindow === undefined ? {} : { maxInputTokens: info.contextWindow }),
    imageInputs: capabilities.vision,
    imageUrlInputs: capabilities.vision,
    audioInputs: capabilities.audio,
    videoInputs: capabilities.video,
    imageOutputs: capabilities.imageGeneration,
    toolCalling: capabilities.tools,
    toolChoice: capabilities.tools,
    // Structured output goes through a forced tool call, which every text model supports; agents
    // then use their tool strategy rather than a native JSON Schema response format.
    structuredOutput: false,
  };
}
