import { listModels, type ModelInfo } from "../catalog/models.js";
import { ParameterError } from "../errors.js";
import { AUDIO_FORMATS, type ChatRequest } from "../gateway/wire.js";
import { ParameterWarning } from "./parameter-warning.js";

/** Outputs above this many tokens go with `stream: true` (spec, section 8: "above 16K"). */
export const STREAM_OUTPUT_THRESHOLD = 16_384;

/** Sampling and length settings as the caller gives them, before any model rule. */
export interface SamplingSettings {
  /** 0..1; checked before sending. */
  readonly temperature?: number;
  /** 0..1; checked before sending. */
  readonly topP?: number;
  /** Output budget in tokens; sent in the field the model takes. */
  readonly maxTokens?: number;
  readonly stop?: string | readonly string[];
}

/** The request fields the rules decide. */
export interface RuledParameters {
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
}

/** Parameters for one model, with a warning for every change made to what the caller asked. */
export interface RuleOutcome {
  readonly parameters: RuledParameters;
  readonly warnings: readonly ParameterWarning[];
  /** The output budget that goes on the wire, whichever field carries it. */
  readonly outputLimit?: number;
}

/** Refuses settings no model accepts (temperature outside 0..1 and the like) before any request. */
export function validateSettings(settings: SamplingSettings): void {
  checkUnitRange("temperature", settings.temperature);
  checkUnitRange("topP", settings.topP);
  const { maxTokens } = settings;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1)) {
    throw new ParameterError(`Expected maxTokens to be a positive integer, got ${maxTokens}.`);
  }
}

function checkUnitRange(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isFinite(value) || value < 0 || value > 1)) {
    throw new ParameterError(`Expected ${name} to be between 0 and 1 (the gateway's range), got ${value}.`);
  }
}

/** Maps the caller's settings onto one model's rules from the catalogue (never by name pattern). */
export function applyModelRules(model: ModelInfo, settings: SamplingSettings): RuleOutcome {
  validateSettings(settings);
  const parameters: RuledParameters = {};
  const warnings: ParameterWarning[] = [];
  const { rules } = model;

  let outputLimit = settings.maxTokens;
  if (rules.minOutputTokens !== undefined) {
    if (outputLimit !== undefined && outputLimit < rules.minOutputTokens) {
      warnings.push(
        new ParameterWarning(
          "budget_raised",
          model.id,
          `maxTokens ${outputLimit} was raised to ${rules.minOutputTokens} for ${model.id}: a thinking model ` +
            "spends a smaller budget on thinking and comes back empty.",
        ),
      );
    }
    // Unset is raised too: the gateway's default budget may be below what the model needs.
    outputLimit = Math.max(outputLimit ?? 0, rules.minOutputTokens);
  }
  if (outputLimit !== undefined) {
    if (rules.outputLimitField === "max_completion_tokens") {
      parameters.max_completion_tokens = outputLimit;
      warnings.push(
        new ParameterWarning(
          "max_tokens_renamed",
          model.id,
          `maxTokens is sent as max_completion_tokens to ${model.id}: the model rejects max_tokens.`,
        ),
      );
    } else {
      parameters.max_tokens = outputLimit;
    }
  }

  const sampling = { temperature: settings.temperature, top_p: settings.topP };
  if (rules.rejectsSampling) {
    if (sampling.temperature !== undefined || sampling.top_p !== undefined) {
      warnings.push(
        new ParameterWarning(
          "sampling_dropped",
          model.id,
          `temperature and topP were not sent to ${model.id}: the model rejects sampling parameters.`,
        ),
      );
    }
  } else {
    if (sampling.temperature !== undefined) parameters.temperature = sampling.temperature;
    if (sampling.top_p !== undefined) parameters.top_p = sampling.top_p;
  }

  if (settings.stop !== undefined) {
    const stop = typeof settings.stop === "string" ? [settings.stop] : [...settings.stop];
    if (stop.length > 0) parameters.stop = stop;
  }
  return { parameters, warnings, outputLimit };
}

/** Refuses input the model cannot take (audio, video, images, tools), naming models that can. */
export function checkInputForModel(model: ModelInfo, request: Pick<ChatRequest, "messages" | "tools">): void {
  const { capabilities } = model;
  for (const message of request.messages) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (part.type === "input_audio") {
        const format = part.input_audio.format.toLowerCase();
        if (!(AUDIO_FORMATS as readonly string[]).includes(format)) {
          throw new ParameterError(
            `Audio format "${part.input_audio.format}" is not accepted: the gateway takes mp3 or wav only. ` +
              "Convert the file first (for example `ffmpeg -i input.ogg output.mp3`).",
          );
        }
        if (!capabilities.audio) throw refused(model, "audio input", "audio");
      } else if (
        part.type === "video_url" ||
        (part.type === "image_url" && /^data:video\//i.test(part.image_url.url))
      ) {
        if (!capabilities.video) throw refused(model, "video input", "video");
      } else if (part.type === "image_url" && !capabilities.vision) {
        throw refused(model, "image input", "vision");
      }
    }
  }
  if (request.tools?.length && !capabilities.tools) throw refused(model, "tools", "tools");
}

function refused(model: ModelInfo, what: string, capability: "audio" | "video" | "vision" | "tools"): ParameterError {
  const able = listModels()
    .filter((candidate) => candidate.capabilities[capability])
    .map((candidate) => candidate.id);
  return new ParameterError(`${model.id} does not take ${what}. Use one of: ${able.join(", ")}.`);
}
