/**
 * Tool-call arguments so far with the next streamed fragment joined on, and the part of the
 * fragment that is new. Some providers resend the whole arguments so far in every chunk (DeepSeek
 * and Baidu Qianfan, NousResearch/hermes-agent PR #35718), or restate the complete arguments in a
 * closing chunk after streaming them (elizaOS/eliza PR #16973); appending those made `{...}{...}`,
 * and a good call was thrown away. A fragment that starts with everything so far replaces it (no
 * real continuation of JSON does that), and so does a restatement of complete arguments as the
 * same object; anything else is appended.
 */
export function joinArguments(sofar: string, fragment: string): { joined: string; added: string } {
  if (sofar === "" || fragment === "") return { joined: sofar + fragment, added: fragment };
  if (fragment.startsWith(sofar)) return { joined: fragment, added: fragment.slice(sofar.length) };
  if (OPENS_OBJECT.test(fragment)) {
    const before = canonical(sofar);
    if (before !== undefined && before === canonical(fragment)) return { joined: sofar, added: "" };
  }
  return { joined: sofar + fragment, added: fragment };
}

const OPENS_OBJECT = /^\s*\{/;

// The text of a JSON object re-serialized (whitespace dropped), or undefined when it is not one.
function canonical(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? JSON.stringify(value) : undefined;
  } catch {
    return undefined;
  }
}
