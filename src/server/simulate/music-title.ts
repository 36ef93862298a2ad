import { titleCase } from "./filler-text.js";
import { findSubject } from "./subject-phrase.js";

const KINDS =
  /\b(jingle|song|anthem|ballad|lullaby|theme|track|tune|loop|march|waltz|melody|score|soundtrack|intro|outro)s?\b/i;
const LONGEST = 48;

/** A clip's title from its prompt: "A bright jingle for a solar lantern" gives "Solar Lantern Jingle". */
export function musicTitle(prompt: string): string {
  const kind = KINDS.exec(prompt)?.[1]?.toLowerCase();
  const subject = findSubject(prompt)?.bare;
  if (subject !== undefined) return titleCase(kind === undefined ? subject : `${subject} ${kind}`);
  return titleCase(firstWords(prompt.replace(/[^\p{L}\p{N}' -]+/gu, " ")) || "Untitled");
}

// Whole words up to LONGEST characters, and never ending on a word that leads into the cut-off rest.
function firstWords(text: string): string {
  const words: string[] = [];
  for (const word of text.trim().split(/\s+/).slice(0, 6)) {
    if ([...words, word].join(" ").length > LONGEST) break;
    words.push(word);
  }
  while (words.length > 1 && /^(a|an|the|of|for|and|with|in|on|to|by|at)$/i.test(words.at(-1)!)) words.pop();
  return words.join(" ");
}
