import { readFileSync } from "node:fs";
import jpeg from "jpeg-js";
import { describe, expect, it } from "vitest";
import { audioTokens } from "../src/catalog/tokens.js";
import type { ContentPart } from "../src/gateway/wire.js";
import { encodePng } from "../src/media/png.js";
import { createRaster } from "../src/media/raster.js";
import { encodeWav } from "../src/media/wav.js";
import { bandsRaster, minimalMp4, pngDataUri, silentMp3, sineWav } from "./media-builders.js";
import { chat, user } from "./simulate-helpers.js";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/media/${name}`, import.meta.url));
const ask = (question: string, ...parts: ContentPart[]) => user([{ type: "text", text: question }, ...parts]);
const image = (url: string): ContentPart => ({ type: "image_url", image_url: { url } });
const audio = (bytes: Buffer, format: string): ContentPart => ({
  type: "input_audio",
  input_audio: { data: bytes.toString("base64"), format },
});

describe("simulated vision", () => {
  it("reports a PNG's size and its colours decoded from its pixels", async () => {
    const raster = bandsRaster(64, 32, [
      { rgb: [208, 32, 32], share: 0.75 },
      { rgb: [255, 255, 255], share: 0.25 },
    ]);
    const reply = await chat("beta-4o", [ask("What is in this image?", image(pngDataUri(raster)))]);
    expect(reply.content).toContain("64x32 PNG");
    expect(reply.content).toMatch(/mostly red \(#d02020\) with some white \(#ffffff\)/);
  });

  it("decodes a JPEG and names its colour", async () => {
    const raster = createRaster(40, 40, [30, 60, 220, 255]);
    const bytes = jpeg.encode({ width: 40, height: 40, data: Buffer.from(raster.data) }, 90).data;
    const reply = await chat("alpha-sonnet-4-6", [
      ask("Describe the picture.", image(`data:image/jpeg;base64,${bytes.toString("base64")}`)),
    ]);
    expect(reply.content).toContain("40x40 JPEG");
    expect(reply.content).toMatch(/entirely blue/);
  });

  it("describes each of several images in order", async () => {
    const green = pngDataUri(createRaster(10, 20, [20, 160, 60, 255]));
    const yellow = pngDataUri(createRaster(30, 10, [245, 215, 50, 255]));
    const reply = await chat("gamma-2.5-flash", [ask("Compare these.", image(green), image(yellow))]);
    expect(reply.content).toMatch(
      /Image 1 is a 10x20 PNG \(portrait\), entirely green.*Image 2 is a 30x10 PNG \(landscape\), entirely yellow/,
    );
  });

  it("gives a GIF's size but says its colours are not decoded", async () => {
    const reply = await chat("beta-4o", [
      ask("What colour is this?", image(`data:image/gif;base64,${fixture("tiny.gif").toString("base64")}`)),
    ]);
    expect(reply.content).toContain("10x6 GIF");
    expect(reply.content).toMatch(/not its colours/);
  });

  it("fetches an http image through the context and says so when it cannot", async () => {
    const png = encodePng(createRaster(8, 8, [240, 140, 30, 255]));
    const url = "https://images.example.test/cat.png";
    const fetched = await chat(
      "beta-4o",
      [ask("What is this?", image(url))],
      {},
      { seed: 1, fetchImage: async (asked) => (asked === url ? png : undefined) },
    );
    expect(fetched.content).toMatch(/8x8 PNG.*entirely orange/);
    const missing = await chat("beta-4o", [ask("What is this?", image(url))]);
    expect(missing.content).toContain(`could not fetch the image from ${url}`);
  });

  it("still sees an image sent earlier when a follow-up asks about it", async () => {
    const reply = await chat("beta-4o", [
      ask("Here is a photo.", image(pngDataUri(createRaster(12, 12, [130, 60, 180, 255])))),
      { role: "assistant", content: "Got it." },
      user("What colour is the image?"),
    ]);
    expect(reply.content).toMatch(/entirely purple/);
  });
});

describe("simulated audio and video understanding", () => {
  it("reports a WAV tone's length, format, loudness and pitch", async () => {
    const reply = await chat("gamma-2.5-flash", [
      ask("What do you hear?", audio(sineWav({ hz: 440, seconds: 2, amplitude: 0.5 }), "wav")),
    ]);
    expect(reply.content).toContain("2.0 s mono WAV clip at 16 kHz (16-bit PCM)");
    expect(reply.content).toMatch(/-9\.0 dBFS RMS/);
    expect(reply.content).toMatch(/about 440 Hz \(A4\)/);
    expect(reply.content).toContain(`${audioTokens(2)} prompt tokens`);
  });

  it("says when a WAV is silent", async () => {
    const silence = encodeWav(new Int16Array(8000), { sampleRate: 8000 });
    const reply = await chat("gamma-2.5-pro", [ask("Is anything said here?", audio(silence, "wav"))], {
      max_tokens: 8192,
    });
    expect(reply.content).toMatch(/1\.0 s .*It is silent\./);
  });

  it("reports an MP3's duration, bitrate and channels from its frames", async () => {
    const mp3 = silentMp3({ frames: 115, kbps: 128, id3: true });
    const reply = await chat("gamma-2.5-flash-lite", [ask("How long is this clip?", audio(mp3, "mp3"))]);
    expect(reply.content).toContain("3.0 s stereo MP3 at 128 kbit/s and 44.1 kHz, 115 frames");
  });

  it("reports a video's duration, frame size, codecs and prompt tokens", async () => {
    const mp4 = minimalMp4({ seconds: 4, width: 320, height: 240, audio: true });
    const video: ContentPart = {
      type: "video_url",
      video_url: { url: `data:video/mp4;base64,${mp4.toString("base64")}` },
    };
    const reply = await chat("gamma-2.5-flash", [ask("Describe the video.", video)]);
    expect(reply.content).toContain(
      "4.0 s video at 320x240 (avc1) with an audio track (mp4a), 1200 prompt tokens of video",
    );
  });

  it("reads a video sent as a data:video image_url part too", async () => {
    const mp4 = minimalMp4({ seconds: 2.5, width: 64, height: 48 });
    const reply = await chat("gamma-2.5-flash", [
      ask("What is this?", image(`data:video/mp4;base64,${mp4.toString("base64")}`)),
    ]);
    expect(reply.content).toContain("2.5 s video at 64x48 (avc1) without an audio track");
  });
});
