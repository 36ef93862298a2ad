import path from "node:path";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ToolInputError } from "../src/errors.js";
import { probeMp3 } from "../src/media/mp3.js";
import { wavDurationS } from "../src/media/probe.js";
import { requireWorkspace } from "./support/check-option.js";
import { TOOL_REPLY_MAX_TOKENS, checkToolModel, toolChat, type GatewayAccess } from "./support/gateway-access.js";
import { readWorkspaceMedia } from "./support/workspace-media.js";

/** The model understand_audio uses unless told otherwise: audio input is a gamma-2.5 capability. */
export const DEFAULT_AUDIO_MODEL = "gamma-2.5-flash";

/** Largest audio file sent (the gateway limits a request's size; long audio is to be split). */
export const MAX_AUDIO_BYTES = 15 * 1024 * 1024;

/** Options of the understand_audio tool. */
export interface UnderstandAudioToolOptions extends GatewayAccess {
  /** Folder audio files are read from; paths outside it are refused. */
  workspace: string;
  /** A gamma-2.5 model (they alone take audio). Default gamma-2.5-flash. */
  model?: string;
}

/** Input of the understand_audio tool. */
export const understandAudioSchema = z.object({
  path: z.string().min(1).describe('An mp3 or wav file in the workspace, e.g. "audio/interview.mp3".'),
  question: z
    .string()
    .min(1)
    .max(2000)
    .optional()
    .describe(
      'What to find out, e.g. "Transcribe the speech" or "What instruments play?". Default: a description of the audio.',
    ),
});

// The gateway takes mp3 and wav only: the name is checked before reading, the content after, so a
// renamed file is caught before paying for a request the gateway would refuse.
function audioFormat(requested: string): "mp3" | "wav" {
  const extension = path.extname(requested).slice(1).toLowerCase();
  if (extension === "mp3" || extension === "wav") return extension;
  const stem = requested.replace(/\.[^./]+$/, "");
  throw new ToolInputError(
    `"${requested}" is ${extension === "" ? "not named as mp3 or wav" : `${extension} audio`}; the gateway takes mp3 or wav only. ` +
      `Convert it first, e.g. \`ffmpeg -i ${requested} ${stem}.mp3\`, then call understand_audio on the mp3.`,
    { code: "unsupported_audio_format" },
  );
}

function checkContent(relative: string, format: "mp3" | "wav", bytes: Buffer): void {
  const readable = format === "wav" ? wavDurationS(bytes) !== undefined : probeMp3(bytes) !== undefined;
  if (readable) return;
  throw new ToolInputError(
    `"${relative}" is named .${format} but its content is not ${format} audio. Convert it to mp3 or wav first, e.g. with ffmpeg.`,
    { code: "unsupported_audio_format" },
  );
}

/** Creates the `understand_audio` tool: a gamma-2.5 model listens to a workspace mp3/wav and answers. */
export function createUnderstandAudioTool(options: UnderstandAudioToolOptions) {
  const workspace = requireWorkspace(options.workspace, "understand_audio");
  const model = checkToolModel(options.model ?? DEFAULT_AUDIO_MODEL, "audio", "understand_audio", DEFAULT_AUDIO_MODEL);
  return tool(
    async ({ path: requested, question }, config) => {
      const format = audioFormat(requested);
      const audio = await readWorkspaceMedia(workspace, requested, MAX_AUDIO_BYTES);
      checkContent(audio.relative, format, audio.bytes);
      const content = [
        {
          type: "text" as const,
          text: question ?? "Describe this audio: what it is, how long it is, and what can be heard.",
        },
        { type: "input_audio" as const, input_audio: { data: audio.bytes.toString("base64"), format } },
      ];
      const reply = await toolChat(
        options,
        { model, tool: "understand_audio", messages: [{ role: "user", content }], max_tokens: TOOL_REPLY_MAX_TOKENS },
        config?.signal,
      );
      return reply.content;
    },
    {
      name: "understand_audio",
      description:
        "Listens to an mp3 or wav file from the workspace with a gamma-2.5 model and answers a question about " +
        "it: transcribe speech, summarise, name instruments, mood or length. Other formats (m4a, ogg, flac...) " +
        "are refused with a note to convert them first. The gateway has no separate speech-to-text endpoint; " +
        "this is how to transcribe. Audio is billed as prompt tokens (about 1900 per minute).",
      schema: understandAudioSchema,
    },
  );
}
