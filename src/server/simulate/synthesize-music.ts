import { encodeWav } from "../../media/wav.js";
import { degreeToMidi, midiToHz, planMelody, type MelodyPlan } from "./plan-melody.js";
import { seededRandom } from "./seeded-random.js";

/** Sample rate of synthesized music: enough for a melody, small enough to serve fast. */
export const MUSIC_SAMPLE_RATE = 16_000;
/** Longest clip synthesized, in seconds. */
export const MAX_MUSIC_SECONDS = 600;

const TABLE_SIZE = 4096;
const SINE = Float32Array.from({ length: TABLE_SIZE }, (_, index) => Math.sin((2 * Math.PI * index) / TABLE_SIZE));
// Formants (Hz) of the vowels the "voice" sings, cycled note by note: a, o, e.
const VOWELS: ReadonlyArray<readonly [number, number]> = [
  [800, 1200],
  [500, 900],
  [400, 2000],
];

/**
 * A real, playable WAV (16 kHz mono 16-bit PCM) of `seconds` length: a melody whose key, mode,
 * tempo and notes come from the prompt and seed, over a bass line and light percussion, played on
 * a plucked instrument (instrumental) or sung by a vowel-formant "voice" with vibrato.
 */
export function synthesizeMusic(
  prompt: string,
  options: { seed: number; seconds: number; instrumental: boolean },
): Buffer {
  if (!(options.seconds > 0 && options.seconds <= MAX_MUSIC_SECONDS)) {
    throw new RangeError(`Expected seconds in (0, ${MAX_MUSIC_SECONDS}], got ${options.seconds}`);
  }
  const plan = planMelody(prompt, options.seed);
  const length = Math.round(options.seconds * MUSIC_SAMPLE_RATE);
  const mix = new Float32Array(length);
  const beatSamples = (60 / plan.tempoBpm) * MUSIC_SAMPLE_RATE;
  const loops = Math.ceil(length / (plan.beats * beatSamples));
  for (let loop = 0; loop < loops; loop++) {
    const offset = loop * plan.beats * beatSamples;
    for (const [index, note] of plan.notes.entries()) {
      const start = Math.round(offset + note.startBeat * beatSamples);
      const duration = Math.round(note.beats * beatSamples);
      if (options.instrumental) pluck(mix, start, duration, midiToHz(note.midi), 0.5);
      else voice(mix, start, duration, midiToHz(note.midi), VOWELS[index % VOWELS.length]!, 0.5);
    }
    backing(mix, plan, offset, beatSamples, options.seed + loop);
  }
  return encodeWav(finish(mix), { sampleRate: MUSIC_SAMPLE_RATE });
}

function pluck(out: Float32Array, start: number, duration: number, hz: number, gain: number): void {
  const step = (hz * TABLE_SIZE) / MUSIC_SAMPLE_RATE;
  const end = Math.min(out.length, start + duration);
  for (let sample = start; sample < end; sample++) {
    const time = (sample - start) / MUSIC_SAMPLE_RATE;
    const envelope = Math.min(1, time / 0.005) * Math.exp(-time / 0.35) * Math.min(1, (end - sample) / 80);
    const phase = (sample - start) * step;
    out[sample]! += gain * envelope * (table(phase) + 0.4 * table(phase * 2) + 0.15 * table(phase * 3));
  }
}

function voice(
  out: Float32Array,
  start: number,
  duration: number,
  hz: number,
  [first, second]: readonly [number, number],
  gain: number,
): void {
  const end = Math.min(out.length, start + duration);
  const harmonics: number[] = [];
  for (let harmonic = 1; harmonic * hz < MUSIC_SAMPLE_RATE / 2 && harmonic <= 12; harmonic++) {
    const frequency = harmonic * hz;
    harmonics.push(0.08 + 1 / (1 + ((frequency - first) / 120) ** 2) + 0.6 / (1 + ((frequency - second) / 160) ** 2));
  }
  const total = harmonics.reduce((sum, amplitude) => sum + amplitude, 0);
  let phase = 0;
  for (let sample = start; sample < end; sample++) {
    const time = (sample - start) / MUSIC_SAMPLE_RATE;
    // A sung note: soft attack, vibrato that grows in, release at the end.
    const vibrato = 1 + 0.006 * Math.min(1, time / 0.3) * table((time * 5.5 * TABLE_SIZE) | 0);
    phase += (hz * vibrato * TABLE_SIZE) / MUSIC_SAMPLE_RATE;
    const envelope = Math.min(1, time / 0.06) * Math.min(1, (end - sample) / (0.08 * MUSIC_SAMPLE_RATE));
    let value = 0;
    for (let index = 0; index < harmonics.length; index++) value += harmonics[index]! * table(phase * (index + 1));
    out[sample]! += ((gain * envelope * value) / total) * 1.6;
  }
}

function backing(out: Float32Array, plan: MelodyPlan, offset: number, beatSamples: number, seed: number): void {
  const noise = seededRandom(seed);
  for (let beat = 0; beat < plan.beats; beat++) {
    const start = Math.round(offset + beat * beatSamples);
    if (start >= out.length) return;
    const bar = Math.floor(beat / 4);
    if (beat % 4 === 0)
      pluck(
        out,
        start,
        Math.round(beatSamples * 4),
        midiToHz(degreeToMidi(plan.rootMidi - 12, plan.mode, plan.chordDegrees[bar]!)),
        0.35,
      );
    if (beat % 2 === 0) kick(out, start);
    const hat = Math.round(start + beatSamples / 2);
    for (let sample = hat; sample < Math.min(out.length, hat + 480); sample++) {
      out[sample]! += 0.05 * (noise.next() * 2 - 1) * Math.exp(-(sample - hat) / 90);
    }
  }
}

function kick(out: Float32Array, start: number): void {
  let phase = 0;
  for (let sample = start; sample < Math.min(out.length, start + 2400); sample++) {
    const time = (sample - start) / MUSIC_SAMPLE_RATE;
    phase += ((50 + 60 * Math.exp(-time / 0.03)) * TABLE_SIZE) / MUSIC_SAMPLE_RATE;
    out[sample]! += 0.3 * table(phase) * Math.exp(-time / 0.12);
  }
}

function table(phase: number): number {
  return SINE[(phase | 0) & (TABLE_SIZE - 1)]!;
}

/** Normalised to a peak of 0.85 with short fades, as 16-bit samples. */
function finish(mix: Float32Array): Int16Array {
  let peak = 0;
  for (const sample of mix) peak = Math.max(peak, Math.abs(sample));
  const scale = peak > 0 ? 0.85 / peak : 0;
  const fadeIn = Math.min(mix.length, Math.round(0.02 * MUSIC_SAMPLE_RATE));
  const fadeOut = Math.min(
    mix.length,
    Math.round(Math.min(0.5, (mix.length / MUSIC_SAMPLE_RATE) * 0.1) * MUSIC_SAMPLE_RATE),
  );
  const samples = new Int16Array(mix.length);
  for (let index = 0; index < mix.length; index++) {
    const fade = Math.min(1, index / Math.max(1, fadeIn), (mix.length - index) / Math.max(1, fadeOut));
    samples[index] = Math.round(mix[index]! * scale * fade * 32767);
  }
  return samples;
}
