import { hashText, seededRandom } from "./seeded-random.js";

/** One note of a melody. */
export interface MelodyNote {
  /** MIDI note number (69 = A4 = 440 Hz). */
  readonly midi: number;
  readonly startBeat: number;
  readonly beats: number;
}

/** A short song plan: tempo, key and a two-phrase melody over a four-chord progression. */
export interface MelodyPlan {
  readonly tempoBpm: number;
  readonly mode: "major" | "minor";
  /** MIDI number of the key's tonic, in the octave below the melody. */
  readonly rootMidi: number;
  /** Scale degree of each bar's chord root, one bar = 4 beats. */
  readonly chordDegrees: readonly number[];
  readonly notes: readonly MelodyNote[];
  /** Length of the plan in beats; the song loops it. */
  readonly beats: number;
}

const SCALES = { major: [0, 2, 4, 5, 7, 9, 11], minor: [0, 2, 3, 5, 7, 8, 10] } as const;
const PROGRESSIONS = { major: [0, 4, 5, 3], minor: [0, 5, 2, 6] } as const;
const BARS = 8;
const RHYTHMS: ReadonlyArray<readonly number[]> = [
  [1, 1, 1, 1],
  [2, 1, 1],
  [1, 1, 2],
  [0.5, 0.5, 1, 2],
  [1, 0.5, 0.5, 2],
  [4],
  [2, 2],
];

/** MIDI number of a scale degree (which may pass the octave) above a tonic. */
export function degreeToMidi(rootMidi: number, mode: MelodyPlan["mode"], degree: number): number {
  const scale = SCALES[mode];
  const octave = Math.floor(degree / 7);
  return rootMidi + 12 * octave + scale[((degree % 7) + 7) % 7]!;
}

/** Frequency in Hz of a MIDI note. */
export function midiToHz(midi: number): number {
  return 440 * 2 ** ((midi - 69) / 12);
}

/** The melody a prompt gets: mood words pick the mode, pace words the tempo, the hash the notes. */
export function planMelody(prompt: string, seed: number): MelodyPlan {
  const random = seededRandom(hashText(seed, prompt, "melody"));
  const minor = /\b(sad|dark|melanchol\w*|moody|minor|rain\w*|lonely|night|blues|haunting|somber)\b/i.test(prompt);
  const major = /\b(happy|upbeat|bright|joy\w*|sunny|cheerful|major|party|celebrat\w*|jingle)\b/i.test(prompt);
  const mode = minor && !major ? "minor" : major && !minor ? "major" : random.pick(["major", "minor"] as const);
  const slow = /\b(slow|ballad|calm|ambient|lullaby|chill|relax\w*|gentle|sleep\w*)\b/i.test(prompt);
  const fast = /\b(fast|upbeat|dance|energetic|party|rock|punk|edm|techno|drum and bass|quick)\b/i.test(prompt);
  const tempoBpm = slow && !fast ? random.int(64, 84) : fast && !slow ? random.int(124, 150) : random.int(90, 118);
  const rootMidi = random.int(57, 64);
  const progression = PROGRESSIONS[mode];
  const chordDegrees = Array.from({ length: BARS }, (_, bar) => progression[bar % progression.length]!);
  const notes: MelodyNote[] = [];
  let degree = chordDegrees[0]! + 7;
  for (let bar = 0; bar < BARS; bar++) {
    const rhythm = bar === BARS - 1 ? [4] : random.pick(RHYTHMS);
    let beat = bar * 4;
    for (const [index, beats] of rhythm.entries()) {
      // Downbeats land on a chord tone; the rest of the bar walks the scale by small steps.
      if (index === 0) degree = chordDegrees[bar]! + 7 + random.pick([0, 2, 4]);
      else degree = Math.max(5, Math.min(14, degree + random.pick([-2, -1, 1, 2])));
      if (bar === BARS - 1) degree = 7;
      notes.push({ midi: degreeToMidi(rootMidi, mode, degree), startBeat: beat, beats });
      beat += beats;
    }
  }
  return { tempoBpm, mode, rootMidi, chordDegrees, notes, beats: BARS * 4 };
}
