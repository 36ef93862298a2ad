import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { MessageImage } from "../chat/decode-image-reply.js";

/**
 * Writes generated images: to `out` (the second and later ones as `name-2.png`, ...), or by default
 * to `image-<first 8 hex of sha256>.<ext>` in `cwd`, so the same image always gets the same name.
 * Resolves to the paths written.
 */
export async function saveImages(
  images: readonly MessageImage[],
  options: { cwd: string; out?: string },
): Promise<string[]> {
  const paths: string[] = [];
  for (const [index, image] of images.entries()) {
    const extension = image.mimeType.split("/")[1]?.replace("jpeg", "jpg") ?? "png";
    const file =
      options.out === undefined
        ? `image-${createHash("sha256").update(image.bytes).digest("hex").slice(0, 8)}.${extension}`
        : numbered(options.out, index);
    const target = path.resolve(options.cwd, file);
    await writeFile(target, image.bytes);
    paths.push(target);
  }
  return paths;
}

function numbered(file: string, index: number): string {
  if (index === 0) return file;
  const extension = path.extname(file);
  return `${file.slice(0, file.length - extension.length)}-${index + 1}${extension}`;
}
