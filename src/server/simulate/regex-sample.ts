import type { SeededRandom } from "./seeded-random.js";
import { patternRegExp } from "./json-schema-check.js";

// A sampler for the regular expressions tool schemas use (`^[A-Z]{3}$`, `^\d{4}-\d{2}$`,
// `^(draft|final)-\w+$`): literals, classes, groups, alternation and quantifiers. Lookarounds and
// backreferences are not sampled; the caller then falls back to other candidates.

type Node =
  | { kind: "chars"; ranges: Array<[number, number]>; negated: boolean }
  | { kind: "group"; alternatives: Node[][] }
  | { kind: "repeat"; node: Node; min: number; max: number };

const ESCAPES: Record<string, Array<[number, number]>> = {
  d: [[48, 57]],
  w: [
    [97, 122],
    [65, 90],
    [48, 57],
    [95, 95],
  ],
  s: [[32, 32]],
};
const ANY: Array<[number, number]> = [[97, 122]];
const CANDIDATES = "abcxyzABCXYZ0123456789_-. ";
const MAX_REPEAT = 1000;

/** A string that matches the pattern (checked), or undefined when the pattern is beyond the sampler. */
export function sampleRegex(pattern: string, random: SeededRandom): string | undefined {
  let parsed: Node[][];
  try {
    parsed = new Parser(pattern).alternatives();
  } catch {
    return undefined;
  }
  const text = generate({ kind: "group", alternatives: parsed }, random);
  return text !== undefined && patternRegExp(pattern).test(text) ? text : undefined;
}

function generate(node: Node, random: SeededRandom): string | undefined {
  if (node.kind === "chars") return pickChar(node, random);
  if (node.kind === "repeat") {
    const count = node.min + random.int(0, Math.min(2, node.max - node.min));
    let text = "";
    for (let index = 0; index < count; index++) {
      const part = generate(node.node, random);
      if (part === undefined) return undefined;
      text += part;
    }
    return text;
  }
  const alternative = random.pick(node.alternatives);
  let text = "";
  for (const item of alternative) {
    const part = generate(item, random);
    if (part === undefined) return undefined;
    text += part;
  }
  return text;
}

function pickChar(node: Extract<Node, { kind: "chars" }>, random: SeededRandom): string | undefined {
  const inside = (code: number) => node.ranges.some(([low, high]) => code >= low && code <= high);
  if (node.negated) {
    const allowed = [...CANDIDATES].filter((character) => !inside(character.codePointAt(0)!));
    return allowed.length > 0 ? random.pick(allowed) : undefined;
  }
  const [low, high] = random.pick(node.ranges);
  return String.fromCodePoint(low + random.int(0, Math.min(25, high - low)));
}

class Parser {
  #position = 0;
  readonly #source: string;

  constructor(source: string) {
    this.#source = source;
  }

  alternatives(): Node[][] {
    const alternatives: Node[][] = [[]];
    while (this.#position < this.#source.length) {
      const character = this.#source[this.#position]!;
      if (character === ")") break;
      this.#position++;
      if (character === "|") alternatives.push([]);
      else if (character === "^" || character === "$") continue;
      else alternatives.at(-1)!.push(this.#quantified(this.#atom(character)));
    }
    return alternatives;
  }

  #atom(character: string): Node {
    if (character === "(") {
      if (this.#source[this.#position] === "?") {
        const named = /^\?<[A-Za-z_]\w*>/.exec(this.#source.slice(this.#position));
        if (named) this.#position += named[0].length;
        else if (this.#source[this.#position + 1] === ":") this.#position += 2;
        else throw new Error("lookaround");
      }
      const alternatives = this.alternatives();
      if (this.#source[this.#position++] !== ")") throw new Error("unclosed group");
      return { kind: "group", alternatives };
    }
    if (character === "[") return this.#charClass();
    if (character === ".") return { kind: "chars", ranges: ANY, negated: false };
    if (character === "\\") return this.#escape(this.#source[this.#position++] ?? "");
    if ("*+?{".includes(character)) throw new Error("dangling quantifier");
    const code = character.codePointAt(0)!;
    return { kind: "chars", ranges: [[code, code]], negated: false };
  }

  #escape(character: string): Node {
    const lower = character.toLowerCase();
    if (ESCAPES[lower]) return { kind: "chars", ranges: ESCAPES[lower]!, negated: character !== lower };
    if (/[1-9bBpPuxck]/.test(character)) throw new Error("unsupported escape");
    const code = ({ n: 10, t: 9, r: 13 } as Record<string, number>)[character] ?? character.codePointAt(0)!;
    return { kind: "chars", ranges: [[code, code]], negated: false };
  }

  #charClass(): Node {
    const negated = this.#source[this.#position] === "^";
    if (negated) this.#position++;
    const ranges: Array<[number, number]> = [];
    while (this.#position < this.#source.length && this.#source[this.#position] !== "]") {
      let character = this.#source[this.#position++]!;
      if (character === "\\") {
        const escaped = this.#source[this.#position++] ?? "";
        const set = ESCAPES[escaped];
        if (set) {
          ranges.push(...set);
          continue;
        }
        character = escaped;
      }
      const low = character.codePointAt(0)!;
      if (
        this.#source[this.#position] === "-" &&
        this.#source[this.#position + 1] !== "]" &&
        this.#position + 1 < this.#source.length
      ) {
        this.#position++;
        let end = this.#source[this.#position++]!;
        if (end === "\\") end = this.#source[this.#position++] ?? "";
        ranges.push([low, end.codePointAt(0)!]);
      } else ranges.push([low, low]);
    }
    if (this.#source[this.#position++] !== "]" || ranges.length === 0) throw new Error("bad class");
    return { kind: "chars", ranges, negated };
  }

  #quantified(node: Node): Node {
    const character = this.#source[this.#position];
    let range: [number, number] | undefined;
    if (character === "*") range = [0, 3];
    else if (character === "+") range = [1, 3];
    else if (character === "?") range = [0, 1];
    else if (character === "{") {
      const match = /^\{(\d+)(?:(,)(\d*))?\}/.exec(this.#source.slice(this.#position));
      if (!match) return node;
      const min = Math.min(Number(match[1]), MAX_REPEAT);
      const max = Math.min(match[2] ? (match[3] ? Number(match[3]) : min + 3) : min, MAX_REPEAT);
      this.#position += match[0].length - 1;
      range = [min, max];
    }
    if (!range) return node;
    this.#position++;
    if (this.#source[this.#position] === "?") this.#position++;
    return { kind: "repeat", node, min: range[0], max: range[1] };
  }
}
