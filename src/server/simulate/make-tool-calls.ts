import type { ModelInfo } from "../../catalog/models.js";
import type { Conversation } from "./conversation.js";
import { findFieldMention } from "./field-mention.js";
import type { JsonSchema } from "./json-schema-check.js";
import { answerArguments } from "./json-reply.js";
import { generateValue } from "./json-schema-values.js";
import type { MediaFacts } from "./media-facts.js";
import type { PlannedCall } from "./plan-tool-calls.js";
import { readFacts } from "./prompt-facts.js";
import type { SeededRandom } from "./seeded-random.js";
import type { SimulatedToolCall } from "./simulated-reply.js";
import { suggestFromFacts } from "./suggest-values.js";

const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
/** Tries at arguments that differ from an identical earlier call. */
const ATTEMPTS = 3;

/**
 * Tool calls with ids and arguments valid against each tool's parameters, filled from the prompt
 * (an answer tool from the whole conversation). A call identical to one made since the last user
 * message is not made again; of candidates only the first new one is made; when nothing new is
 * left, the first call is made anyway, since the request demands one.
 */
export function makeToolCalls(
  planned: readonly PlannedCall[],
  conversation: Conversation,
  model: ModelInfo,
  random: SeededRandom,
  media: readonly MediaFacts[] = [],
): SimulatedToolCall[] {
  const made = new Set(conversation.callsSinceUser.map((call) => callKey(call.function.name, call.function.arguments)));
  const calls: SimulatedToolCall[] = [];
  let first: SimulatedToolCall | undefined;
  for (const plan of planned) {
    const name = plan.tool.function.name;
    let args = argumentsFor(plan, conversation, random, media);
    for (let attempt = 1; attempt < ATTEMPTS && made.has(callKey(name, args)); attempt++)
      args = argumentsFor(plan, conversation, random, media);
    const simulated = toolCall(name, args, model, random);
    first ??= simulated;
    if (made.has(callKey(name, args))) continue;
    made.add(callKey(name, args));
    calls.push(simulated);
    if (plan.candidate) break;
  }
  return calls.length > 0 || first === undefined ? calls : [first];
}

function argumentsFor(
  { tool, item, answer }: PlannedCall,
  conversation: Conversation,
  random: SeededRandom,
  media: readonly MediaFacts[],
): string {
  const parameters = (tool.function.parameters ?? { type: "object", properties: {} }) as JsonSchema;
  if (answer) return JSON.stringify(answerArguments(parameters, conversation, random, media) ?? {});
  const facts = readFacts(conversation.userText);
  const fromFacts = suggestFromFacts(facts, item);
  const mentioned = new Map<string, ReturnType<typeof findFieldMention>>();
  const mention = (name: string, schema: Parameters<typeof findFieldMention>[2]) => {
    if (!mentioned.has(name)) mentioned.set(name, findFieldMention(facts.text, name, schema));
    return mentioned.get(name);
  };
  const value = generateValue(parameters, {
    random,
    suggest: (name, schema, index) => mention(name, schema)?.value ?? fromFacts(name, schema, index),
    includeOptional: (name, schema) => mention(name, schema) !== undefined,
  });
  return JSON.stringify(value ?? {});
}

function toolCall(name: string, args: string, model: ModelInfo, random: SeededRandom): SimulatedToolCall {
  const call: SimulatedToolCall = { id: `call_${randomText(random, 24)}`, name, arguments: args };
  // Gamma models sign their tool calls; the signature must come back on the next turn.
  if (model.family === "gamma")
    call.extra = { thought_signature: Buffer.from(randomText(random, 48)).toString("base64") };
  return call;
}

// Same tool and same arguments, whatever their key order.
function callKey(name: string, args: string): string {
  try {
    return `${name}\n${JSON.stringify(sortKeys(JSON.parse(args)))}`;
  } catch {
    return `${name}\n${args}`;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, item]) => [key, sortKeys(item)]),
  );
}

function randomText(random: SeededRandom, length: number): string {
  let text = "";
  for (let index = 0; index < length; index++) text += ID_ALPHABET[random.int(0, ID_ALPHABET.length - 1)];
  return text;
}
