import { StreamError } from "../errors.js";
import { jsonTextOf } from "./body-kind.js";
import { errorFromResponse } from "./error-from-response.js";
import type { OpenResponse } from "./http-transport.js";
import { failedFinishBody, failedFinishReason } from "./stream-ending.js";
import { chatResponseSchema, type ChatChunk, type ChatResponse } from "./wire.js";
import { isErrorReply } from "./wire-guards.js";

/**
 * The chunks a stream request's answer stands for when it came whole instead of as events (a JSON
 * body, or a web page). A JSON error body (relays that fail before streaming) is thrown as its typed
 * error; a whole `chat.completion` (a server that ignores `stream: true`, qualcomm/GenieX#567) is the
 * reply, as one chunk; anything else, such as a proxy's or a captive portal's page, is a StreamError
 * that names the content type and never quotes markup.
 */
export function wholeBodyChunks(
  text: string,
  opened: Pick<OpenResponse, "status" | "headers" | "ids" | "url">,
  apiKey: string | undefined,
): ChatChunk[] {
  const value = parseJson(jsonTextOf(text));
  const failure = { status: opened.status, headers: opened.headers, ...(apiKey === undefined ? {} : { apiKey }) };
  if (isErrorReply(value)) throw errorFromResponse({ ...failure, body: value });
  const parsed = value === undefined ? undefined : chatResponseSchema.safeParse(value);
  if (parsed?.success && parsed.data.choices.length > 0) {
    const failed = failedFinishReason(parsed.data.choices);
    if (failed !== undefined) throw errorFromResponse({ ...failure, body: failedFinishBody(failed) });
    return [asChunk(parsed.data)];
  }
  const kind = String(opened.headers["content-type"] ?? "(no content type)")
    .split(";")[0]!
    .trim();
  throw new StreamError(
    `The gateway answered a stream request with ${kind} instead of an event stream (${opened.url}). ` +
      "Check that the base URL is the gateway's /v1 root.",
    { ...opened.ids, status: opened.status, retryable: false },
  );
}

/** A whole response as the one chunk that carries all of it. */
function asChunk(response: ChatResponse): ChatChunk {
  return {
    ...(response.id === undefined ? {} : { id: response.id }),
    object: "chat.completion.chunk",
    model: response.model ?? null,
    choices: response.choices.map(({ index, finish_reason, message }) => ({
      index,
      delta: {
        ...message,
        ...(message.tool_calls === undefined
          ? {}
          : { tool_calls: message.tool_calls.map((call, position) => ({ ...call, index: position })) }),
      },
      finish_reason: finish_reason ?? (message.tool_calls?.length ? "tool_calls" : "stop"),
    })),
    ...(response.usage === undefined ? {} : { usage: response.usage }),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
