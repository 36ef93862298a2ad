import { describe, expect, it } from "vitest";
import type { Message } from "../src/gateway/wire.js";
import { decodePng } from "../src/media/png.js";
import type { Raster } from "../src/media/raster.js";
import { dominantColours } from "../src/server/simulate/colour-names.js";
import { bandsRaster, pngDataUri } from "./media-builders.js";
import { chat, user } from "./simulate-helpers.js";

const IMAGE = /^!\[image\]\(data:image\/png;base64,([A-Za-z0-9+/=]+)\)\n\n(.+)$/s;

async function generate(
  prompt: string | Message["content"],
  model = "gamma-2.5-flash-image",
  seed = 1,
): Promise<{ raster: Raster; caption: string; png: Buffer }> {
  const reply = await chat(model, [user(prompt)], {}, { seed });
  expect(reply.images).toBe(1);
  expect(reply.finishReason).toBe("stop");
  const match = IMAGE.exec(reply.content);
  expect(match).not.toBeNull();
  const png = Buffer.from(match![1]!, "base64");
  return { raster: decodePng(png)!, caption: match![2]!, png };
}

const colourNames = (raster: Raster) =>
  dominantColours(raster)
    .filter((share) => share.share > 0.05)
    .map((share) => share.name);

describe("simulated image generation", () => {
  it("returns a real 256x256 PNG inline as markdown, with a caption", async () => {
    const { raster, caption } = await generate("A lighthouse on a cliff");
    expect([raster.width, raster.height]).toEqual([256, 256]);
    expect(caption).toMatch(/^Generated a 256x256 image for "lighthouse/);
  });

  it("paints the colours and pattern the prompt names", async () => {
    const { raster, caption } = await generate("red and blue stripes");
    expect(colourNames(raster).sort()).toEqual(expect.arrayContaining(["blue", "red"]));
    expect(caption).toContain("stripes in red, blue");
  });

  it("depends on the prompt and is the same for the same prompt and seed", async () => {
    const first = await generate("A green meadow at dawn");
    const again = await generate("A green meadow at dawn");
    const other = await generate("A neon city at night");
    const reseeded = await generate("A green meadow at dawn", "gamma-2.5-flash-image", 2);
    expect(again.png.equals(first.png)).toBe(true);
    expect(other.png.equals(first.png)).toBe(false);
    expect(colourNames(first.raster)).toContain("green");
    expect(reseeded.png.equals(first.png)).toBe(false);
  });

  it("honours size words and explicit sizes", async () => {
    expect((await generate("a poster of a sunset")).raster.width).toBe(512);
    const wide = (await generate("a wide banner with gold circles")).raster;
    expect([wide.width, wide.height]).toEqual([512, 256]);
    const explicit = (await generate("an icon, 96x64")).raster;
    expect([explicit.width, explicit.height]).toEqual([96, 64]);
  });

  it.each(["gamma-3-pro-image-preview", "gamma-3.1-flash-image-preview"])("works on %s", async (model) => {
    expect((await generate("a yellow sun", model)).raster.width).toBe(256);
  });

  it("edits a source image: inverting gives 255 minus each source pixel, at the source size", async () => {
    const source = bandsRaster(40, 30, [
      { rgb: [200, 30, 10], share: 0.5 },
      { rgb: [10, 100, 250], share: 0.5 },
    ]);
    const { raster, caption } = await generate([
      { type: "text", text: "Invert the colours of this image" },
      { type: "image_url", image_url: { url: pngDataUri(source) } },
    ]);
    expect([raster.width, raster.height]).toEqual([40, 30]);
    for (const at of [0, (15 * 40 + 35) * 4]) {
      expect(Array.from(raster.data.subarray(at, at + 3))).toEqual(
        Array.from(source.data.subarray(at, at + 3), (value) => 255 - value),
      );
    }
    expect(caption).toContain("Edited the 40x30 source image: inverted the colours");
  });

  it("edits as asked: grayscale, tint, mirror and rotate", async () => {
    const source = bandsRaster(20, 10, [
      { rgb: [255, 0, 0], share: 0.5 },
      { rgb: [0, 0, 255], share: 0.5 },
    ]);
    const edit = (text: string) =>
      generate([
        { type: "text", text },
        { type: "image_url", image_url: { url: pngDataUri(source) } },
      ]);
    const gray = (await edit("make it black and white")).raster;
    expect(new Set(Array.from(gray.data.subarray(0, 3))).size).toBe(1);
    const mirrored = (await edit("mirror it")).raster;
    expect(Array.from(mirrored.data.subarray(0, 3))).toEqual([0, 0, 255]);
    const rotated = (await edit("rotate it")).raster;
    expect([rotated.width, rotated.height]).toEqual([10, 20]);
    const tinted = (await edit("give it a green tint")).raster;
    expect(tinted.data[1]).toBeGreaterThan(50);
  });

  it("derives an edit from the source even when no instruction is recognised", async () => {
    const source = bandsRaster(50, 50, [{ rgb: [120, 120, 120], share: 1 }]);
    const { raster } = await generate([
      { type: "text", text: "make it festive" },
      { type: "image_url", image_url: { url: pngDataUri(source) } },
    ]);
    expect([raster.width, raster.height]).toEqual([50, 50]);
    const unchanged = Array.from({ length: 2500 }, (_, pixel) => raster.data[pixel * 4] === 120).filter(Boolean).length;
    expect(unchanged).toBeGreaterThan(1000);
    expect(unchanged).toBeLessThan(2500);
  });

  it("makes a new image and says why when the source cannot be decoded", async () => {
    const gif = "data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";
    const { caption, raster } = await generate([
      { type: "text", text: "Invert this" },
      { type: "image_url", image_url: { url: gif } },
    ]);
    expect(raster.width).toBe(256);
    expect(caption).toMatch(/source image is a GIF.*new image rather than an edit/);
  });
});
