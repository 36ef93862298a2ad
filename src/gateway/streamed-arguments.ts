/**
 * A tool call's arguments, fragment by fragment. The chat format appends every fragment, but some
 * providers resend the whole arguments so far in every chunk (DeepSeek and Baidu Qianfan,
 * NousResearch/hermes-agent PR #35718) or restate the complete arguments in a closing chunk after
 * streaming them (elizaOS/eliza PR #16973); appended, those make `{...}{...}` and a good call is
 * thrown away. So two readings are kept: the appended one, and one where a fragment that starts with
 * everything so far replaces it and a restatement of the same object adds nothing. Which one is the
 * call's is decided at the end, not per fragment, because a real continuation can also start with
 * everything before it (`{"a":` then `{"a":1}}`): the appended text when it is JSON, else the other
 * reading when that is, else the appended text (whose error then shows what came).
 */
export class StreamedArguments {
  #appended = "";
  #resent = "";

  /** Takes the next fragment; returns what it adds by the resending reading (a stream's delta). */
  add(fragment: string): string {
    this.#appended += fragment;
    const { joined, added } = joinResent(this.#resent, fragment);
    this.#resent = joined;
    return added;
  }

  /** The arguments' text. */
  get text(): string {
    if (this.#appended === this.#resent || isJson(this.#appended) || !isJson(this.#resent)) return this.#appended;
    return this.#resent;
  }
}

function joinResent(sofar: string, fragment: string): { joined: string; added: string } {
  if (sofar === "" || fragment === "") return { joined: sofar + fragment, added: fragment };
  if (fragment.startsWith(sofar)) return { joined: fragment, added: fragment.slice(sofar.length) };
  if (OPENS_OBJECT.test(fragment)) {
    const before = canonical(sofar);
    if (before !== undefined && before === canonical(fragment)) return { joined: sofar, added: "" };
  }
  return { joined: sofar + fragment, added: fragment };
}

const OPENS_OBJECT = /^\s*\{/;

function isJson(text: string): boolean {
  return parsed(text) !== undefined;
}

// The text of a JSON object re-serialized (whitespace dropped), or undefined when it is not one.
function canonical(text: string): string | undefined {
  const value = parsed(text);
  return typeof value === "object" && value !== null && !Array.isArray(value) ? JSON.stringify(value) : undefined;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
