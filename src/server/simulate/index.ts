// The simulated models of the local gateway: what the server calls to answer chat and music requests.
export { simulateChat } from "./simulate-chat.js";
export { synthesizeMusic } from "./synthesize-music.js";
export { musicTitle } from "./music-title.js";
export { writeLyrics } from "./write-lyrics.js";
export type { SimulateContext, SimulatedReply, SimulatedToolCall } from "./simulated-reply.js";
