import { capitalise } from "./filler-text.js";
import { readFacts } from "./prompt-facts.js";
import { hashText, seededRandom, type SeededRandom } from "./seeded-random.js";

// Line templates end on a rhyme word; `{k}` is a word from the prompt. Couplets share a rhyme group.
const RHYMES: ReadonlyArray<readonly string[]> = [
  ["night", "light", "flight", "sight", "kite"],
  ["day", "way", "bay", "ray", "highway"],
  ["heart", "start", "art", "chart"],
  ["fire", "choir", "wire", "spire"],
  ["sky", "goodbye", "lullaby", "butterfly"],
  ["home", "stone", "foam", "dome", "phone"],
  ["dream", "stream", "beam", "team"],
  ["rain", "lane", "train", "plain"],
];
const VERSE_LINES = [
  "Walking through the {k} until we reach the {r}",
  "Every {k} I hold reminds me of the {r}",
  "We wrote our names in {k} beneath the {r}",
  "There's a {k} inside me shining like the {r}",
  "Carry the {k} and never lose the {r}",
  "All the {k} we gathered by the {r}",
  "Out on the edge of {k} we found the {r}",
  "Counting every {k} on the way to the {r}",
];
const CHORUS_LINES = [
  "Oh, {k}, take me to the {r}",
  "Sing it loud, {k}, into the {r}",
  "{K}, {k}, burning like the {r}",
  "Hold on to {k}, hold on to the {r}",
];

/** Song lyrics about the prompt: two verses, a chorus sung twice, a bridge; deterministic per seed. */
export function writeLyrics(prompt: string, seed: number): string {
  const random = seededRandom(hashText(seed, prompt, "lyrics"));
  const facts = readFacts(prompt);
  const words = facts.keywords.filter(
    (word) =>
      !/^(song|lyrics|music|track|instrumental|vocals?|about|style|genre|happy|sad|upbeat|slow|fast)$/i.test(word),
  );
  const themes = words.length > 0 ? words : ["morning", "road", "city"];
  const chorus = stanza(CHORUS_LINES, themes, random, 4);
  const sections = [
    ["[Verse 1]", stanza(VERSE_LINES, themes, random, 4)],
    ["[Chorus]", chorus],
    ["[Verse 2]", stanza(VERSE_LINES, themes, random, 4)],
    ["[Chorus]", chorus],
    ["[Bridge]", stanza(VERSE_LINES, themes, random, 2)],
    ["[Chorus]", chorus],
  ] as const;
  return `${sections.map(([heading, lines]) => `${heading}\n${lines}`).join("\n\n")}\n`;
}

function stanza(templates: readonly string[], themes: readonly string[], random: SeededRandom, count: number): string {
  const lines: string[] = [];
  let group = random.pick(RHYMES);
  let offset = 0;
  for (let index = 0; index < count; index++) {
    if (index % 2 === 0) {
      group = random.pick(RHYMES);
      offset = random.int(0, group.length - 1);
    }
    const theme = themes[(index + random.int(0, themes.length - 1)) % themes.length]!;
    const line = random
      .pick(templates)
      .replace("{K}", capitalise(theme))
      .replaceAll("{k}", theme)
      .replace("{r}", group[(offset + (index % 2)) % group.length]!);
    lines.push(capitalise(line));
  }
  return lines.join("\n");
}
