import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ToolInputError } from "../src/errors.js";
import { probeImage } from "../src/media/probe.js";
import { requireWorkspace } from "./support/check-option.js";
import { checkToolModel, toolImageChat, type GatewayAccess } from "./support/gateway-access.js";
import { saveImageReply } from "./support/save-image-reply.js";
import { chooseOutputPath, readWorkspaceMedia, slugFromText } from "./support/workspace-media.js";
import { DEFAULT_IMAGE_MODEL } from "./generate-image.js";

/** Largest source image sent for editing (the gateway limits a request's size). */
export const MAX_IMAGE_BYTES = 15 * 1024 * 1024;

/** Options of the edit_image tool. */
export interface EditImageToolOptions extends GatewayAccess {
  /** Folder the source is read from and the result written to; paths outside it are refused. */
  workspace: string;
  /** An image-generating model. Default gamma-2.5-flash-image. */
  model?: string;
}

/** Input of the edit_image tool. */
export const editImageSchema = z.object({
  path: z
    .string()
    .min(1)
    .describe('The image to edit (PNG, JPEG, GIF or WebP), relative to the workspace, e.g. "images/lantern.png".'),
  prompt: z
    .string()
    .min(1)
    .max(4000)
    .describe('What to change, e.g. "make the background dark blue" or "add a border".'),
  output_path: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Where to save the edited PNG, relative to the workspace. Default: beside the source, named "<source>-edited.png".',
    ),
});

/** Reads an image from the workspace and says what it is; anything else is refused before paying. */
export async function readWorkspaceImage(workspace: string, requested: string) {
  const media = await readWorkspaceMedia(workspace, requested, MAX_IMAGE_BYTES);
  const facts = probeImage(media.bytes);
  if (facts === undefined) {
    throw new ToolInputError(
      `"${media.relative}" is not a PNG, JPEG, GIF or WebP image. Give the path of an image file.`,
      {
        code: "not_an_image",
      },
    );
  }
  return { ...media, facts, mimeType: `image/${facts.format}` };
}

/** Creates the `edit_image` tool: changes a workspace image as instructed and saves the result beside it. */
export function createEditImageTool(options: EditImageToolOptions) {
  const workspace = requireWorkspace(options.workspace, "edit_image");
  const model = checkToolModel(
    options.model ?? DEFAULT_IMAGE_MODEL,
    "imageGeneration",
    "edit_image",
    DEFAULT_IMAGE_MODEL,
  );
  return tool(
    async ({ path, prompt, output_path: outputPath }, config) => {
      const source = await readWorkspaceImage(workspace, path);
      const stem = `${slugFromText(source.relative.replace(/\.[^./]+$/, "").replace(/^.*\//, ""), "image")}-edited`;
      const folder = source.relative.includes("/") ? source.relative.slice(0, source.relative.lastIndexOf("/")) : ".";
      await chooseOutputPath(workspace, outputPath, { folder, stem }, "png");
      const content = [
        { type: "text" as const, text: prompt },
        {
          type: "image_url" as const,
          image_url: { url: `data:${source.mimeType};base64,${source.bytes.toString("base64")}` },
        },
      ];
      const { reply, linked } = await toolImageChat(
        options,
        { model, tool: "edit_image", messages: [{ role: "user", content }] },
        config?.signal,
      );
      const saved = await saveImageReply(reply, linked, { workspace, requested: outputPath, folder, stem, model });
      return JSON.stringify({ ...saved, source: source.relative });
    },
    {
      name: "edit_image",
      description:
        "Edits an image from the workspace with the gateway's image model, following an instruction (recolour, " +
        "crop, add a border, change the style), and saves the result as a new PNG in the workspace; the source " +
        "is left as it is. Returns JSON with the new path, width, height and size in bytes. Billed like " +
        "generate_image (about ¥0.42 per image).",
      schema: editImageSchema,
    },
  );
}
