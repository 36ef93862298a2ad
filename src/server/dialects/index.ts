// Relay dialects of the local gateway: how each relay shapes streams, replies and errors.
import type { Family } from "../../catalog/models.js";
import { azureDialect } from "./azure.js";
import { cleanDialect } from "./clean.js";
import type { Dialect } from "./dialect.js";
import { litellmDialect } from "./litellm.js";
import { newApiDialect } from "./new-api.js";
import { oneApiGeminiDialect } from "./one-api-gemini.js";
import { openRouterDialect } from "./openrouter.js";

export type {
  Dialect,
  DialectError,
  DialectStream,
  GatewayFailure,
  ReplyParts,
  ReplyToolCall,
  ReplyUsage,
} from "./dialect.js";
export { cleanDialect, cleanErrorBody } from "./clean.js";

/** Every dialect the local gateway speaks, by name. */
export const DIALECTS = {
  clean: cleanDialect,
  "one-api-gemini": oneApiGeminiDialect,
  "new-api": newApiDialect,
  azure: azureDialect,
  openrouter: openRouterDialect,
  litellm: litellmDialect,
} as const satisfies Record<string, Dialect>;

/** A dialect's name. */
export type DialectName = keyof typeof DIALECTS;

/** The dialect names, `clean` first. */
export const DIALECT_NAMES = Object.keys(DIALECTS) as DialectName[];

/** The `dialect:` config value: one name, or a name per model family (unnamed families speak clean). */
export type DialectSetting = DialectName | Partial<Record<Family, DialectName>>;

/** Picks the dialect of each reply from the `dialect:` setting. */
export class DialectChoice {
  readonly #setting: DialectSetting;

  constructor(setting: DialectSetting = "clean") {
    this.#setting = setting;
  }

  /** The dialect for a model family; for answers given before the model is known (a bad key, a
   * bad body), the one dialect when a single one is set, else clean. */
  forFamily(family?: Family): Dialect {
    const setting = this.#setting;
    if (typeof setting === "string") return DIALECTS[setting];
    return family === undefined ? cleanDialect : DIALECTS[setting[family] ?? "clean"];
  }
}
