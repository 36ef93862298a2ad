import { describe, expect, it } from "vitest";
import { decodeWav } from "../src/media/wav.js";
import { writeLyrics, synthesizeMusic } from "../src/server/simulate/index.js";
import { midiToHz, planMelody } from "../src/server/simulate/plan-melody.js";

/** Power of one frequency in a window of samples (Goertzel). */
function power(samples: Float32Array, sampleRate: number, hz: number): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * hz) / sampleRate);
  let previous = 0;
  let beforePrevious = 0;
  for (const sample of samples) {
    const current = sample + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
}

/** Share of a signal's energy in its high frequencies (first differences against the signal). */
function brightness(samples: Float32Array): number {
  let energy = 0;
  let difference = 0;
  for (let index = 1; index < samples.length; index++) {
    energy += samples[index]! ** 2;
    difference += (samples[index]! - samples[index - 1]!) ** 2;
  }
  return difference / energy;
}

describe("synthesized music", () => {
  it("is a playable 16 kHz mono 16-bit WAV of the requested length", () => {
    const wav = decodeWav(
      synthesizeMusic("upbeat jingle for a solar lantern", { seed: 1, seconds: 6, instrumental: true }),
    )!;
    expect(wav.sampleRate).toBe(16_000);
    expect(wav.channels).toHaveLength(1);
    expect(wav.bitsPerSample).toBe(16);
    expect(wav.seconds).toBeCloseTo(6, 3);
    const peak = wav.channels[0]!.reduce((max, sample) => Math.max(max, Math.abs(sample)), 0);
    expect(peak).toBeGreaterThan(0.8);
    expect(peak).toBeLessThan(0.9);
  });

  it("plays the planned melody: the first note's pitch is the loudest near it", () => {
    const prompt = "a calm lullaby about the moon";
    const plan = planMelody(prompt, 5);
    const wav = decodeWav(synthesizeMusic(prompt, { seed: 5, seconds: 3, instrumental: true }))!;
    const window = wav.channels[0]!.subarray(400, 400 + 2048);
    const note = midiToHz(plan.notes[0]!.midi);
    const target = power(window, wav.sampleRate, note);
    for (const neighbour of [note * 2 ** (-1 / 12), note * 2 ** (1 / 12), note * 2 ** (2 / 12)]) {
      expect(target).toBeGreaterThan(power(window, wav.sampleRate, neighbour) * 2);
    }
  });

  it("derives tempo and mode from the prompt's words", () => {
    const slow = planMelody("a slow sad ballad", 1);
    const fast = planMelody("a fast happy dance track", 1);
    expect(slow.tempoBpm).toBeLessThanOrEqual(84);
    expect(slow.mode).toBe("minor");
    expect(fast.tempoBpm).toBeGreaterThanOrEqual(124);
    expect(fast.mode).toBe("major");
  });

  it("is the same for the same prompt and seed, and differs by prompt and seed", () => {
    const options = { seed: 3, seconds: 2, instrumental: true };
    const first = synthesizeMusic("rainy city jazz", options);
    expect(synthesizeMusic("rainy city jazz", options).equals(first)).toBe(true);
    expect(synthesizeMusic("mountain folk song", options).equals(first)).toBe(false);
    expect(synthesizeMusic("rainy city jazz", { ...options, seed: 4 }).equals(first)).toBe(false);
  });

  it("sings with a brighter, formant-rich voice when not instrumental", () => {
    const prompt = "a song about the sea";
    const instrumental = decodeWav(synthesizeMusic(prompt, { seed: 2, seconds: 4, instrumental: true }))!.channels[0]!;
    const vocal = decodeWav(synthesizeMusic(prompt, { seed: 2, seconds: 4, instrumental: false }))!.channels[0]!;
    expect(brightness(vocal)).toBeGreaterThan(brightness(instrumental) * 1.2);
  });

  it("refuses a length outside (0, 600] seconds", () => {
    expect(() => synthesizeMusic("x", { seed: 1, seconds: 0, instrumental: true })).toThrow(/Expected seconds/);
    expect(() => synthesizeMusic("x", { seed: 1, seconds: 601, instrumental: true })).toThrow(/Expected seconds/);
  });
});

describe("lyrics", () => {
  it("writes verses, a repeated chorus and a bridge about the prompt's words", () => {
    const lyrics = writeLyrics("a song about summer nights in Lisbon", 1);
    expect(lyrics.match(/^\[(Verse 1|Verse 2|Chorus|Bridge)\]$/gm)).toEqual([
      "[Verse 1]",
      "[Chorus]",
      "[Verse 2]",
      "[Chorus]",
      "[Bridge]",
      "[Chorus]",
    ]);
    expect(lyrics).toMatch(/Lisbon|summer/);
    const choruses = lyrics
      .split("[Chorus]\n")
      .slice(1)
      .map((part) => part.split("\n\n")[0]!.trim());
    expect(new Set(choruses).size).toBe(1);
  });

  it("is deterministic per seed and varies across seeds and prompts", () => {
    expect(writeLyrics("rain on the window", 4)).toBe(writeLyrics("rain on the window", 4));
    expect(writeLyrics("rain on the window", 5)).not.toBe(writeLyrics("rain on the window", 4));
    expect(writeLyrics("a desert road trip", 4)).not.toBe(writeLyrics("rain on the window", 4));
  });
});
