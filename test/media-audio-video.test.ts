import { describe, expect, it } from "vitest";
import { analyseAudio, noteName } from "../src/media/analyse-audio.js";
import { probeMp3 } from "../src/media/mp3.js";
import { probeMp4 } from "../src/media/mp4.js";
import { mp3DurationS, mp4DurationS, wavDurationS } from "../src/media/probe.js";
import { decodeWav, encodeWav, mixToMono } from "../src/media/wav.js";
import { minimalMp4, rawWav, silentMp3, sineWav } from "./media-builders.js";

describe("WAV", () => {
  it("round-trips 16-bit PCM samples", () => {
    const samples = Int16Array.from([0, 1000, -1000, 32767, -32768, 5]);
    const decoded = decodeWav(encodeWav(samples, { sampleRate: 8000 }))!;
    expect(decoded.sampleRate).toBe(8000);
    expect(Array.from(decoded.channels[0]!, (value) => Math.round(value * 32768))).toEqual(Array.from(samples));
    expect(decoded.seconds).toBeCloseTo(6 / 8000, 9);
  });

  it.each([
    [8, false],
    [16, false],
    [24, false],
    [32, false],
    [32, true],
  ])("decodes %i-bit %s samples in two channels", (bits, float) => {
    const values = [0.5, -0.5, 0.25, -0.25];
    const decoded = decodeWav(rawWav({ sampleRate: 22050, channels: 2, bits, float, samples: values }))!;
    expect(decoded.encoding).toBe(float ? "float" : "pcm");
    expect(decoded.channels).toHaveLength(2);
    expect(decoded.channels[0]![0]).toBeCloseTo(0.5, 1);
    expect(decoded.channels[1]![1]).toBeCloseTo(-0.25, 1);
    expect(mixToMono(decoded.channels)[0]).toBeCloseTo(0, 1);
  });

  it("agrees with the duration probe the billing uses", () => {
    const wav = sineWav({ hz: 300, seconds: 1.5 });
    expect(decodeWav(wav)!.seconds).toBeCloseTo(1.5, 6);
    expect(wavDurationS(wav)).toBeCloseTo(1.5, 6);
  });

  it("returns undefined for bytes that are not a WAV", () => {
    expect(decodeWav(Buffer.from("RIFF....AVI LIST"))).toBeUndefined();
  });
});

describe("audio analysis", () => {
  it("finds the frequency of a tone from its zero crossings", () => {
    const wav = decodeWav(sineWav({ hz: 440, seconds: 1 }))!;
    const analysis = analyseAudio(wav.channels[0]!, wav.sampleRate);
    expect(analysis.dominantHz).toBeCloseTo(440, 0);
    expect(noteName(analysis.dominantHz!)).toBe("A4");
  });

  it("measures a full-scale sine at -3 dBFS RMS and 0 dBFS peak", () => {
    const wav = decodeWav(sineWav({ hz: 1000, seconds: 0.5, amplitude: 1 }))!;
    const analysis = analyseAudio(wav.channels[0]!, wav.sampleRate);
    expect(analysis.rmsDb).toBeCloseTo(-3.01, 1);
    expect(analysis.peakDb).toBeCloseTo(0, 1);
  });

  it("calls digital silence silent", () => {
    expect(analyseAudio(new Float32Array(16000), 16000).silent).toBe(true);
  });

  it.each([
    [261.63, "C4"],
    [880, "A5"],
    [110, "A2"],
  ])("names %f Hz as %s", (hz, name) => {
    expect(noteName(hz)).toBe(name);
  });
});

describe("MP3", () => {
  it("measures duration, bitrate, rate and channels from frame headers", () => {
    const facts = probeMp3(silentMp3({ frames: 100, kbps: 128, id3: true }))!;
    expect(facts.frames).toBe(100);
    expect(facts.seconds).toBeCloseTo((100 * 1152) / 44100, 6);
    expect(facts.bitrateKbps).toBe(128);
    expect(facts.sampleRate).toBe(44100);
    expect(facts.channels).toBe(2);
    expect(facts.variableBitrate).toBe(false);
  });

  it("averages a variable bitrate and reads a mono channel mode", () => {
    const facts = probeMp3(silentMp3({ frames: 40, kbps: [64, 192], mono: true }))!;
    expect(facts.bitrateKbps).toBe(128);
    expect(facts.variableBitrate).toBe(true);
    expect(facts.channels).toBe(1);
    expect(mp3DurationS(silentMp3({ frames: 40, kbps: [64, 192] }))).toBeCloseTo((40 * 1152) / 44100, 6);
  });

  it("finds no frames in random text", () => {
    expect(probeMp3(Buffer.from("hello, this is not audio at all"))).toBeUndefined();
  });
});

describe("MP4", () => {
  it("reads duration, frame size and codecs from moov", () => {
    const video = minimalMp4({ seconds: 4.5, width: 320, height: 240, audio: true });
    expect(probeMp4(video)).toEqual({ seconds: 4.5, width: 320, height: 240, videoCodec: "avc1", audioCodec: "mp4a" });
    expect(mp4DurationS(video)).toBe(4.5);
  });

  it("returns undefined without a moov box", () => {
    expect(probeMp4(Buffer.from("\0\0\0\x10ftypisom\0\0\0\0", "latin1"))).toBeUndefined();
  });
});
