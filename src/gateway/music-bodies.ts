import { z } from "zod";
import type { GatewayIds } from "../errors.js";
import { invalidResponse } from "./http-transport.js";
import { clipSchema, type Clip } from "./wire.js";

// The spec shows only that a generate call yields clips with ids; the music API family these
// paths come from answers with a bare array, a single clip, or `{ clips }` / `{ data }`, so all
// four are read.
const clipsBodySchema = z.union([
  z.array(clipSchema),
  z.looseObject({ clips: z.array(clipSchema) }),
  z.looseObject({ data: z.array(clipSchema) }),
  clipSchema,
]);

/** Generated lyrics. */
export interface Lyrics {
  readonly text: string;
  readonly title?: string;
}

const lyricsBodySchema = z.union([
  z.looseObject({ text: z.string(), title: z.string().nullish() }),
  z.looseObject({ lyrics: z.string(), title: z.string().nullish() }),
]);

/** Reads the clips of a music response, in whichever of the known shapes it came. */
export function clipsFromBody(value: unknown, ids: GatewayIds, status: number): Clip[] {
  const parsed = clipsBodySchema.safeParse(value);
  if (!parsed.success) throw invalidResponse("The music response holds no clips with ids.", ids, status);
  const body = parsed.data;
  if (Array.isArray(body)) return body;
  if ("clips" in body && Array.isArray(body.clips)) return body.clips as Clip[];
  if ("data" in body && Array.isArray(body.data)) return body.data as Clip[];
  return [body as Clip];
}

/** Reads the lyrics of a lyrics response. */
export function lyricsFromBody(value: unknown, ids: GatewayIds, status: number): Lyrics {
  const parsed = lyricsBodySchema.safeParse(value);
  if (!parsed.success) throw invalidResponse("The lyrics response holds no text.", ids, status);
  const text = "text" in parsed.data ? parsed.data.text : parsed.data.lyrics;
  const title = parsed.data.title ?? undefined;
  return { text: String(text), ...(title === undefined ? {} : { title }) };
}
