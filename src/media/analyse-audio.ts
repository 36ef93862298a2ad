/** Loudness and pitch of a mono signal. */
export interface AudioAnalysis {
  /** Root mean square level in dBFS (-Infinity for digital silence). */
  readonly rmsDb: number;
  /** Peak level in dBFS. */
  readonly peakDb: number;
  /** True when the peak is below -60 dBFS. */
  readonly silent: boolean;
  /** Dominant frequency in Hz from zero crossings; undefined for silence. */
  readonly dominantHz?: number;
}

const SILENCE_DB = -60;
const NOTE_NAMES = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"];

/** Measures a signal of samples in -1..1: RMS and peak level, and the frequency its zero crossings give. */
export function analyseAudio(samples: Float32Array, sampleRate: number): AudioAnalysis {
  let sumSquares = 0;
  let peak = 0;
  for (const sample of samples) {
    sumSquares += sample * sample;
    const magnitude = Math.abs(sample);
    if (magnitude > peak) peak = magnitude;
  }
  const rms = samples.length > 0 ? Math.sqrt(sumSquares / samples.length) : 0;
  const toDb = (level: number) => (level > 0 ? 20 * Math.log10(level) : Number.NEGATIVE_INFINITY);
  const peakDb = toDb(peak);
  const silent = peakDb < SILENCE_DB;
  if (silent || samples.length === 0) return { rmsDb: toDb(rms), peakDb, silent: true };
  // Hysteresis around zero, so that low-level noise riding on a tone does not add crossings.
  const threshold = rms * 0.25;
  let state = 0;
  let changes = 0;
  let first = -1;
  let last = -1;
  for (let index = 0; index < samples.length; index++) {
    const sample = samples[index]!;
    const next = sample > threshold ? 1 : sample < -threshold ? -1 : state;
    if (next !== state && state !== 0) {
      changes++;
      if (first < 0) first = index;
      last = index;
    }
    state = next;
  }
  // Half periods between the first and the last crossing: exact for a steady tone, whatever its phase.
  const dominantHz = changes >= 2 ? (changes - 1) / 2 / ((last - first) / sampleRate) : undefined;
  return { rmsDb: toDb(rms), peakDb, silent: false, dominantHz };
}

/** The nearest equal-tempered note to a frequency, e.g. 440 Hz is "A4". */
export function noteName(hz: number): string {
  const midi = Math.round(69 + 12 * Math.log2(hz / 440));
  return `${NOTE_NAMES[((midi % 12) + 12) % 12]}${Math.floor(midi / 12) - 1}`;
}
