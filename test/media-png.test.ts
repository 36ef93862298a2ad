import { readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeImage } from "../src/media/decode-image.js";
import { decodePng, encodePng } from "../src/media/png.js";
import { createRaster, fitRaster } from "../src/media/raster.js";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/media/${name}`, import.meta.url));
// Pixels of each fixture as ImageMagick (an independent decoder) reads them, 8-bit RGBA.
const expected = JSON.parse(fixture("expected-pixels.json").toString("utf8")) as Record<
  string,
  { width: number; height: number; rgba: string }
>;

describe("PNG", () => {
  it("round-trips any RGBA raster exactly", () => {
    const rasters = fc
      .record({ width: fc.integer({ min: 1, max: 24 }), height: fc.integer({ min: 1, max: 12 }), opaque: fc.boolean() })
      .chain(({ width, height, opaque }) =>
        fc.uint8Array({ minLength: width * height * 4, maxLength: width * height * 4 }).map((data) => {
          if (opaque) for (let at = 3; at < data.length; at += 4) data[at] = 255;
          return { width, height, data };
        }),
      );
    fc.assert(
      fc.property(rasters, (raster) => {
        const decoded = decodePng(encodePng(raster));
        expect(decoded?.width).toBe(raster.width);
        expect(decoded?.height).toBe(raster.height);
        expect(Buffer.from(decoded!.data).equals(Buffer.from(raster.data))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it("writes RGB without alpha when every pixel is opaque, and RGBA otherwise", () => {
    expect(encodePng(createRaster(4, 4, [1, 2, 3, 255]))[25]).toBe(2);
    expect(encodePng(createRaster(4, 4, [1, 2, 3, 128]))[25]).toBe(6);
  });

  it("chooses row filters adaptively (a gradient uses more than one filter type)", () => {
    const raster = createRaster(64, 64);
    for (let y = 0; y < 64; y++) {
      for (let x = 0; x < 64; x++) raster.data.set([x * 4, y * 4, (x * y) % 256, 255], (y * 64 + x) * 4);
    }
    const png = encodePng(raster);
    const idatLength = png.readUInt32BE(33);
    const rows = inflateSync(png.subarray(41, 41 + idatLength));
    const filters = new Set(Array.from({ length: 64 }, (_, row) => rows[row * (64 * 3 + 1)]));
    expect(filters.size).toBeGreaterThan(1);
  });

  it.each(Object.keys(expected))("decodes %s like an independent decoder does", (name) => {
    const reference = expected[name]!;
    const decoded = decodePng(fixture(name));
    expect(decoded).toBeDefined();
    expect([decoded!.width, decoded!.height]).toEqual([reference.width, reference.height]);
    const want = Buffer.from(reference.rgba, "base64");
    // 16-bit samples: ImageMagick rounds to 8 bits, we keep the high byte; they differ by at most 1.
    const worst = Math.max(...Array.from(decoded!.data, (value, index) => Math.abs(value - want[index]!)));
    expect(worst).toBeLessThanOrEqual(1);
  });

  it("refuses a PNG whose chunk checksum is wrong", () => {
    const png = Buffer.from(encodePng(createRaster(3, 3, [9, 9, 9, 255])));
    png[png.length - 20]! ^= 0xff;
    expect(decodePng(png)).toBeUndefined();
  });

  it("refuses a truncated PNG and bytes that are not a PNG", () => {
    const png = encodePng(createRaster(8, 8, [200, 10, 10, 255]));
    expect(decodePng(png.subarray(0, png.length - 30))).toBeUndefined();
    expect(decodePng(Buffer.from("GIF89a not a png"))).toBeUndefined();
  });

  it("decodes a progressive JPEG through jpeg-js and only sizes GIF and WebP", () => {
    const jpeg = decodeImage(fixture("progressive.jpg"));
    expect(jpeg?.facts).toEqual({ format: "jpeg", width: 32, height: 16 });
    expect(
      Array.from(jpeg!.raster!.data.subarray(0, 3)).every(
        (value, index) => Math.abs(value - [254, 165, 0][index]!) <= 3,
      ),
    ).toBe(true);
    expect(decodeImage(fixture("tiny.gif"))).toEqual({ facts: { format: "gif", width: 10, height: 6 } });
    expect(decodeImage(fixture("tiny.webp"))).toEqual({ facts: { format: "webp", width: 10, height: 6 } });
  });

  it("scales a raster down to fit a side, keeping its aspect", () => {
    const fitted = fitRaster(createRaster(2000, 1000, [5, 6, 7, 255]), 1024);
    expect([fitted.width, fitted.height]).toEqual([1024, 512]);
    expect(Array.from(fitted.data.subarray(0, 4))).toEqual([5, 6, 7, 255]);
  });
});
