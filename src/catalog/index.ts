import { findModel, getModel, listModels, suggestModels } from "./models.js";

/** The model catalogue: one source of truth for the client and the local gateway. */
export const catalog = { getModel, findModel, listModels, suggestModels } as const;
