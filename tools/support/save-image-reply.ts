import type { ChatReply } from "../../src/chat/chat-reply.js";
import { decodeImageReply, imagesFromReply, type MessageImage } from "../../src/chat/decode-image-reply.js";
import { UpstreamError } from "../../src/errors.js";
import { probeImage } from "../../src/media/probe.js";
import { chooseOutputPath, writeWorkspaceFile } from "./workspace-media.js";

/** What an image tool tells the model: where the file is and what it is, never its bytes. */
export interface SavedImage {
  readonly path: string;
  readonly format: string;
  readonly width?: number;
  readonly height?: number;
  readonly bytes: number;
  readonly model: string;
  /** The image model's own words beside the image, when it said any. */
  readonly caption?: string;
}

/** Takes the first image of an image model's reply (or the one it linked, downloaded) and writes it into the workspace. */
export async function saveImageReply(
  reply: ChatReply,
  linked: MessageImage | undefined,
  target: {
    readonly workspace: string;
    readonly requested?: string;
    readonly folder: string;
    readonly stem: string;
    readonly model: string;
  },
): Promise<SavedImage> {
  const image = imagesFromReply(reply.content)[0] ?? linked;
  const blocks = decodeImageReply(reply.content);
  const caption = (
    blocks === undefined ? reply.content : blocks.map((block) => (block.type === "text" ? block.text : "")).join("")
  ).trim();
  if (image === undefined) {
    const said = caption === "" ? "nothing" : `"${caption.slice(0, 200)}"`;
    throw new UpstreamError(
      `The image model ${target.model} answered without an image (it said ${said}). Rephrase the prompt and try again.`,
      {
        code: "no_image",
        retryable: false,
      },
    );
  }
  const facts = probeImage(image.bytes);
  const format = facts?.format ?? image.mimeType.replace(/^image\//, "");
  // The spec promises PNG; another format is saved under its own extension rather than mislabelled.
  const extension = format === "jpeg" ? "jpg" : format;
  const requested =
    target.requested !== undefined && extension !== "png" ? target.requested.replace(/\.png$/i, "") : target.requested;
  const output = await chooseOutputPath(
    target.workspace,
    requested,
    { folder: target.folder, stem: target.stem },
    extension,
  );
  await writeWorkspaceFile(output, image.bytes);
  return {
    path: output.relative,
    format,
    ...(facts === undefined ? {} : { width: facts.width, height: facts.height }),
    bytes: image.bytes.length,
    model: target.model,
    ...(caption === "" ? {} : { caption: caption.slice(0, 300) }),
  };
}
