import type { Agent, Dispatcher } from "undici";

/** The keep-alive undici Agent a client owns, made on its first request, so importing a client does not load undici. */
export class OwnedAgent {
  readonly #options: Agent.Options;
  #agent: Promise<Agent> | undefined;
  #made: Agent | undefined;

  constructor(options: Agent.Options) {
    this.#options = options;
  }

  /** The Agent, made (and undici loaded) on the first call. */
  dispatcher(): Promise<Dispatcher> {
    this.#agent ??= import("undici").then((undici) => (this.#made = new undici.Agent(this.#options)));
    return this.#agent;
  }

  /** The Agent once made, so the requests after the first need not wait for it. */
  get made(): Dispatcher | undefined {
    return this.#made;
  }

  /** Closes the Agent's connections, if it was ever made. */
  async close(): Promise<void> {
    if (this.#agent !== undefined) await (await this.#agent).close();
  }
}
