import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { requireWorkspace } from "./support/check-option.js";
import { checkToolModel, toolImageChat, type GatewayAccess } from "./support/gateway-access.js";
import { saveImageReply } from "./support/save-image-reply.js";
import { chooseOutputPath, slugFromText } from "./support/workspace-media.js";

/** The image model the image tools use unless told otherwise (¥0.42 per image, published). */
export const DEFAULT_IMAGE_MODEL = "gamma-2.5-flash-image";

/** Options of the generate_image tool. */
export interface GenerateImageToolOptions extends GatewayAccess {
  /** Folder the images are written to; output paths outside it are refused. */
  workspace: string;
  /** An image-generating model. Default gamma-2.5-flash-image. */
  model?: string;
}

/** Input of the generate_image tool. */
export const generateImageSchema = z.object({
  prompt: z
    .string()
    .min(1)
    .max(4000)
    .describe('What to draw: subject, style, colours, composition, e.g. "a red paper lantern at night, watercolour".'),
  path: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Where to save the PNG, relative to the workspace, e.g. "posters/lantern.png". Default: images/<words of the prompt>.png.',
    ),
});

/** Creates the `generate_image` tool: draws an image with the gateway's image model and saves the PNG in the workspace. */
export function createGenerateImageTool(options: GenerateImageToolOptions) {
  const workspace = requireWorkspace(options.workspace, "generate_image");
  const model = checkToolModel(
    options.model ?? DEFAULT_IMAGE_MODEL,
    "imageGeneration",
    "generate_image",
    DEFAULT_IMAGE_MODEL,
  );
  return tool(
    async ({ prompt, path }, config) => {
      const stem = slugFromText(prompt, "image");
      // Checked before paying for the image: a refused path costs nothing.
      await chooseOutputPath(workspace, path, { folder: "images", stem }, "png");
      const { reply, linked } = await toolImageChat(
        options,
        { model, tool: "generate_image", messages: [{ role: "user", content: prompt }] },
        config?.signal,
      );
      const saved = await saveImageReply(reply, linked, { workspace, requested: path, folder: "images", stem, model });
      return JSON.stringify(saved);
    },
    {
      name: "generate_image",
      description:
        "Generates an image from a text prompt with the gateway's image model and saves it as a PNG file in " +
        "the workspace. Returns JSON with the saved path, width, height and size in bytes (the image itself is " +
        "not returned; pass the path to describe_image or edit_image to work with it). An existing file is " +
        "never replaced: a numbered name is used instead. Each image is billed (about ¥0.42).",
      schema: generateImageSchema,
    },
  );
}
