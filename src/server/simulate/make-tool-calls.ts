import type { ModelInfo } from "../../catalog/models.js";
import type { JsonSchema } from "./json-schema-check.js";
import { generateValue } from "./json-schema-values.js";
import type { PlannedCall } from "./plan-tool-calls.js";
import type { PromptFacts } from "./prompt-facts.js";
import type { SeededRandom } from "./seeded-random.js";
import type { SimulatedToolCall } from "./simulated-reply.js";
import { suggestFromFacts } from "./suggest-values.js";

const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** Tool calls with ids and arguments valid against each tool's parameters, filled from the prompt. */
export function makeToolCalls(planned: readonly PlannedCall[], facts: PromptFacts, model: ModelInfo, random: SeededRandom): SimulatedToolCall[] {
  return planned.map(({ tool, item }) => {
    const parameters = (tool.function.parameters ?? { type: "object", properties: {} }) as JsonSchema;
    const value = generateValue(parameters, { random, suggest: suggestFromFacts(facts, item) });
    const call: SimulatedToolCall = {
      id: `call_${randomText(random, 24)}`,
      name: tool.function.name,
      arguments: JSON.stringify(value ?? {}),
    };
    // Gamma models sign their tool calls; the signature must come back on the next turn.
    if (model.family === "gamma") call.extra = { thought_signature: Buffer.from(randomText(random, 48)).toString("base64") };
    return call;
  });
}

function randomText(random: SeededRandom, length: number): string {
  let text = "";
  for (let index = 0; index < length; index++) text += ID_ALPHABET[random.int(0, ID_ALPHABET.length - 1)];
  return text;
}
