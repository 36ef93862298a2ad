import { capitalise, titleCase, joinWords } from "./filler-text.js";
import type { AudioFacts, ImageFacts, MediaFacts } from "./media-facts.js";
import { hashText } from "./seeded-random.js";
import type { Subject } from "./subject-phrase.js";

/** What a structured answer is about: the prompt's subject, its key words and the media analysed. */
export interface About {
  readonly subject?: Subject;
  /** Content words of the prompt, most telling first. */
  readonly keywords: readonly string[];
  readonly media: readonly MediaFacts[];
  /** Sentences a field like "summary" should hold, when the prompt says ("a three-sentence summary"). */
  readonly sentences?: number;
}

/** Field names by the kind of phrase that fills them. */
export const PHRASE_KINDS = {
  slogan: /tagline|slogan|headline|motto|hook|catchphrase|strapline|blurb|pitch/,
  title: /^(title|name|heading|subject)$|_title$|^title_/,
  caption: /caption|alt_?text|^alt$/,
  description: /desc|summary|overview|synopsis|explanation|abstract/,
  colours: /colou?rs?|palette|hues?/,
  tags: /tags|keywords|topics|themes|labels|subjects|moods?/,
} as const;

// Slogans as short lines: {a} is the subject with "a", {the} with "the", {S} bare and capitalised.
const SLOGANS = [
  "{S}, made simple.",
  "Brighter days start with {a}.",
  "Take {the} anywhere.",
  "Everything better with {a}.",
  "Small {s}, big difference.",
  "Meet {the} you'll reach for first.",
  "{S}: built to last.",
  "Think {s}. Think ahead.",
  "Your day, powered by {a}.",
  "{S} for every adventure.",
  "The {s} that keeps up with you.",
  "Made for moments with {a}.",
];

/** A slogan about the subject; `index` picks a different one for each item of a list. */
export function sloganAbout(subject: Subject, index: number): string {
  const start = hashText(subject.bare) % SLOGANS.length;
  const template = SLOGANS[(start + index * 5) % SLOGANS.length]!;
  return fillSubject(template, subject);
}

function fillSubject(template: string, subject: Subject): string {
  const proper = subject.bare === subject.definite;
  return (
    template
      .replace("{S}", capitalise(subject.bare))
      .replace("{s}", subject.bare)
      .replace("{a}", subject.indefinite)
      // "Meet the Lumo" reads wrong; a name stands alone.
      .replace("{the}", proper ? subject.bare : subject.definite)
  );
}

/** A phrase for a string field (or the `index`th item of an array field), or undefined when the name says nothing. */
export function phraseFor(field: string, about: About, index?: number): string | undefined {
  const at = index ?? 0;
  const image = about.media.find((facts): facts is ImageFacts => facts.kind === "image");
  const audio = about.media.find((facts): facts is AudioFacts => facts.kind === "audio");
  if (PHRASE_KINDS.colours.test(field)) return image?.colours[at];
  if (PHRASE_KINDS.tags.test(field)) return tagsFor(about)[at];
  if (PHRASE_KINDS.slogan.test(field)) return about.subject ? sloganAbout(about.subject, at) : undefined;
  if (PHRASE_KINDS.caption.test(field))
    return image ? imageCaption(image) : audio ? audioSentences(audio, about.subject)[0] : undefined;
  if (PHRASE_KINDS.description.test(field)) {
    if (image) return imageDescription(image);
    if (audio)
      return audioSentences(audio, about.subject)
        .slice(0, Math.max(1, about.sentences ?? 2))
        .join(" ");
    return undefined;
  }
  if (PHRASE_KINDS.title.test(field)) {
    if (audio) return audioTitle(audio, about.subject);
    if (image) return imageTitle(image);
    return about.subject ? titleCase(about.subject.bare) : undefined;
  }
  return undefined;
}

/** How many items a list field holds when the prompt does not say: what the media showed, or a few. */
export function defaultItemCount(field: string, about: About): number | undefined {
  const image = about.media.find((facts): facts is ImageFacts => facts.kind === "image");
  if (PHRASE_KINDS.colours.test(field)) return image ? image.colours.length : undefined;
  if (PHRASE_KINDS.tags.test(field)) return Math.min(3, tagsFor(about).length);
  return undefined;
}

/** Distinct short phrases naming what the answer is about: the subject, what the media showed, key words. */
export function tagsFor(about: About): string[] {
  const words: string[] = [];
  const generic = /^(photo|image|picture|file|document|clip|recording|video)$/;
  if (about.subject && !generic.test(about.subject.bare)) words.push(about.subject.bare);
  for (const facts of about.media) words.push(...mediaWords(facts));
  if (about.media.length === 0) words.push(...about.keywords);
  const seen = new Set<string>();
  return words.filter((word) => {
    const key = word.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Words for what an image or clip shows, and a setting word where the colours suggest one. */
export function mediaWords(facts: MediaFacts): string[] {
  if (facts.kind === "image") {
    const light = facts.brightness === undefined ? [] : [LIGHT_WORDS[tone(facts.brightness)]!];
    return [...facts.colours.slice(0, 2), ...light, facts.shape, ...sceneWords(facts)];
  }
  if (facts.kind === "audio") {
    const pitch = facts.note === undefined ? [] : [`${facts.note} pitch`];
    return [
      facts.seconds < 60 ? "voice memo" : "recording",
      `${seconds(facts.seconds)}-second take`,
      ...pitch,
      facts.channels === 1 ? "mono" : "stereo",
    ];
  }
  return ["video", `${seconds(facts.seconds)}-second clip`, facts.sound ? "with sound" : "silent"];
}

/** "outdoor" when sky or foliage colours lead, "indoor" for a dark frame; nothing otherwise. */
export function sceneWords(facts: ImageFacts): string[] {
  if (facts.colours.slice(0, 2).some((colour) => /^(green|blue|cyan)$/.test(colour))) return ["outdoor"];
  if (facts.brightness !== undefined && facts.brightness < 30) return ["indoor"];
  return [];
}

function imageCaption(facts: ImageFacts): string {
  const [first, ...rest] = facts.colours;
  const lead =
    facts.brightness === undefined ? capitalise(facts.shape) : `${capitalise(tone(facts.brightness))} ${facts.shape}`;
  if (first === undefined) return `${lead} image, ${facts.width}x${facts.height}.`;
  return `${lead} shot, mostly ${first}${rest.length > 0 ? ` with ${joinWords(rest.slice(0, 2))}` : ""}.`;
}

function imageDescription(facts: ImageFacts): string {
  const light = facts.brightness === undefined ? "" : `; overall brightness ${facts.brightness}%`;
  const colours = facts.colours.length > 0 ? `, in ${joinWords(facts.colours.slice(0, 3))}` : "";
  return `A ${facts.width}x${facts.height} ${facts.shape} image${colours}${light}.`;
}

function imageTitle(facts: ImageFacts): string {
  const colours = facts.colours.slice(0, 2).map(capitalise);
  return colours.length > 0
    ? `${joinWords(colours)}, ${facts.brightness === undefined ? facts.shape : tone(facts.brightness)}`
    : `${capitalise(facts.shape)} Image`;
}

function audioTitle(facts: AudioFacts, subject?: Subject): string {
  const name = titleCase(subject?.bare ?? "Recording");
  if (facts.silent) return `${name}: ${seconds(facts.seconds)} Seconds of Silence`;
  return facts.note === undefined
    ? `${name}: ${seconds(facts.seconds)} Seconds`
    : `${name}: ${seconds(facts.seconds)} Seconds in ${facts.note}`;
}

function audioSentences(facts: AudioFacts, subject?: Subject): string[] {
  const what = subject?.bare ?? "recording";
  const head = `A ${seconds(facts.seconds)}-second ${facts.channels === 1 ? "mono" : "stereo"} ${what}.`;
  if (facts.silent) return [head, "It is silent from start to end.", "There is nothing to transcribe."];
  const pitch =
    facts.hz === undefined
      ? "The pitch is hard to place"
      : `The voice sits ${register(facts.hz)}, around ${Math.round(facts.hz)} Hz (${facts.note})`;
  const level =
    facts.loudnessDb === undefined
      ? ""
      : `, at a ${facts.loudnessDb > -12 ? "loud" : facts.loudnessDb > -24 ? "steady" : "quiet"} ${facts.loudnessDb.toFixed(0)} dBFS`;
  return [head, `${pitch}${level}.`, `At ${seconds(facts.seconds)} seconds it is a quick listen from start to end.`];
}

const LIGHT_WORDS: Readonly<Record<string, string>> = {
  dark: "low light",
  soft: "soft light",
  bright: "bright light",
  "very bright": "high key",
};

function tone(brightness: number): string {
  return brightness < 30 ? "dark" : brightness < 50 ? "soft" : brightness < 70 ? "bright" : "very bright";
}

function register(hz: number): string {
  return hz < 160 ? "low" : hz < 300 ? "in the middle range" : "high";
}

function seconds(value: number): string {
  return value < 10 ? String(Number(value.toFixed(1))) : String(Math.round(value));
}
