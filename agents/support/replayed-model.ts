import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import type { AIMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";

/**
 * A chat model that answers once with a journaled reply. The durable middleware hands it to
 * LangChain's model node in place of the real model for a turn the journal has, so the node still
 * does everything it does with a reply (structured output, tool routing) and nothing is sent.
 */
export class ReplayedModel extends BaseChatModel {
  readonly #message: AIMessage;
  readonly #profile: ModelProfile;

  /** `original`: the model that made the turn; its profile decides the structured-output strategy, as it did then. */
  constructor(message: AIMessage, original: unknown) {
    super({});
    this.#message = message;
    this.#profile = (original as { profile?: ModelProfile } | null)?.profile ?? {};
  }

  override get profile(): ModelProfile {
    return this.#profile;
  }

  _llmType(): string {
    return "journal";
  }

  // Tools were bound when the turn was made; the journaled reply already holds the calls.
  override bindTools(): this {
    return this;
  }

  async _generate(): Promise<ChatResult> {
    return { generations: [{ text: this.#message.text, message: this.#message }] };
  }
}
