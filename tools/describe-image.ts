import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ToolInputError, redactSecrets } from "../src/errors.js";
import { requireWorkspace } from "./support/check-option.js";
import { TOOL_REPLY_MAX_TOKENS, checkToolModel, toolChat, type GatewayAccess } from "./support/gateway-access.js";
import { readWorkspaceImage } from "./edit-image.js";

/** The vision model describe_image uses unless told otherwise: it takes images and has a published price. */
export const DEFAULT_VISION_MODEL = "alpha-sonnet-4-6";

/** Options of the describe_image tool. */
export interface DescribeImageToolOptions extends GatewayAccess {
  /** Folder images are read from; paths outside it are refused. */
  workspace: string;
  /** A model that takes image input. Default alpha-sonnet-4-6. */
  model?: string;
}

/** Input of the describe_image tool. */
export const describeImageSchema = z.object({
  path: z
    .string()
    .min(1)
    .optional()
    .describe('An image in the workspace, e.g. "images/lantern.png". Give this or url.'),
  url: z.string().min(1).max(8192).optional().describe("An http:// or https:// link to an image. Give this or path."),
  question: z
    .string()
    .min(1)
    .max(2000)
    .optional()
    .describe('What to find out, e.g. "What colours dominate?". Default: a description of the image.'),
});

/** Parses an image link and refuses every scheme but http and https. */
export function checkImageUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolInputError(
      `"${redactSecrets(text)}" is not a valid URL. Give an absolute http:// or https:// link, or a workspace path as path.`,
      {
        code: "invalid_url",
      },
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    const hint =
      url.protocol === "file:" || url.protocol === "data:"
        ? " For a local image, pass its workspace path as path instead."
        : "";
    throw new ToolInputError(
      `The URL scheme "${url.protocol}" is refused: describe_image takes http:// and https:// links only.${hint}`,
      {
        code: "url_refused",
      },
    );
  }
  return url;
}

async function imageBlock(workspace: string, path: string | undefined, url: string | undefined) {
  if ((path === undefined) === (url === undefined)) {
    throw new ToolInputError("Give exactly one of path (an image in the workspace) or url (an http(s) link).", {
      code: "invalid_tool_input",
    });
  }
  if (url !== undefined)
    return { block: { type: "image_url" as const, image_url: { url: checkImageUrl(url).href } }, source: url };
  const image = await readWorkspaceImage(workspace, path!);
  return {
    block: {
      type: "image_url" as const,
      image_url: { url: `data:${image.mimeType};base64,${image.bytes.toString("base64")}` },
    },
    source: image.relative,
  };
}

/** Creates the `describe_image` tool: a vision model looks at a workspace image or a link and answers. */
export function createDescribeImageTool(options: DescribeImageToolOptions) {
  const workspace = requireWorkspace(options.workspace, "describe_image");
  const model = checkToolModel(options.model ?? DEFAULT_VISION_MODEL, "vision", "describe_image", DEFAULT_VISION_MODEL);
  return tool(
    async ({ path, url, question }, config) => {
      const { block } = await imageBlock(workspace, path, url);
      const text = question ?? "Describe this image: subject, colours, composition and any text in it.";
      const messages = [{ role: "user" as const, content: [{ type: "text" as const, text }, block] }];
      const reply = await toolChat(
        options,
        { model, tool: "describe_image", messages, max_tokens: TOOL_REPLY_MAX_TOKENS },
        config?.signal,
      );
      return reply.content;
    },
    {
      name: "describe_image",
      description:
        "Looks at an image with a vision model and answers a question about it (or describes it: subject, " +
        "colours, composition, text). The image is a workspace file (path: PNG, JPEG, GIF or WebP) or an " +
        "http(s) link (url); other URL schemes are refused. Returns the model's answer as text.",
      schema: describeImageSchema,
    },
  );
}
