import { z } from "zod";
import type { MusicOperation } from "../catalog/prices.js";
import { MUSIC_PATHS } from "../gateway/wire.js";
import type { KeyAccount } from "./key-account.js";
import { concatWav } from "./concat-wav.js";
import { MUSIC_CREDITS, type ClipData, type ClipRecord, type ClipSpec, type MusicStore } from "./music-store.js";
import { musicTitle, synthesizeMusic } from "./simulate/index.js";

/** The clips a billed music call will make, or why it cannot be made. */
export type MusicJobPlan =
  | { readonly ok: true; readonly specs: ClipSpec[]; readonly credits: number }
  | { readonly ok: false; readonly status: 400 | 404; readonly param: string; readonly message: string };

/** Music operations that make clips, by their path under `musicapi/api/`. */
export const CLIP_OPERATIONS: Readonly<Record<string, MusicOperation>> = {
  [MUSIC_PATHS.generate]: "generate",
  [MUSIC_PATHS.continuation]: "continuation",
  [MUSIC_PATHS.stems]: "stems",
  [MUSIC_PATHS.concatenation]: "concatenation",
};

const text = z.string().max(3000);
const SCHEMAS = {
  generate: z.looseObject({
    prompt: text.min(1),
    make_instrumental: z.boolean().optional(),
    tags: text.optional(),
    title: text.optional(),
  }),
  continuation: z.looseObject({
    audio_id: z.string().min(1),
    prompt: text.optional(),
    continue_at: z.number().nonnegative().optional(),
    tags: text.optional(),
    title: text.optional(),
  }),
  stems: z.looseObject({ audio_id: z.string().min(1) }),
  concatenation: z.looseObject({ clip_id: z.string().min(1) }),
} as const;

/** Validates a music call's body and plans its clips; parents must be the caller's complete clips. */
export function planMusicJob(
  operation: MusicOperation,
  body: unknown,
  account: KeyAccount,
  store: MusicStore,
): MusicJobPlan {
  if (!(operation in SCHEMAS)) throw new Error(`${operation} makes no clips.`);
  const schema = SCHEMAS[operation as keyof typeof SCHEMAS];
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = issue.path.join(".");
    return { ok: false, status: 400, param, message: `Invalid ${param || "body"}: ${issue.message}.` };
  }
  const credits = MUSIC_CREDITS[operation];
  if (operation === "generate") {
    const input = parsed.data as z.infer<typeof SCHEMAS.generate>;
    const instrumental = input.make_instrumental ?? false;
    const base = { type: "gen" as const, prompt: input.prompt, tags: input.tags ?? "", instrumental };
    return {
      ok: true,
      credits,
      specs: [1, 2].map((take) =>
        withRender(
          { ...base, title: `${input.title ?? musicTitle(input.prompt)}${take === 2 ? " (take 2)" : ""}` },
          account,
          store,
        ),
      ),
    };
  }
  const parentId = "audio_id" in parsed.data ? String(parsed.data.audio_id) : String(parsed.data.clip_id);
  const parentParam = "audio_id" in parsed.data ? "audio_id" : "clip_id";
  const parent = store.clip(parentId, account);
  if (!parent)
    return {
      ok: false,
      status: 404,
      param: parentParam,
      message: `No clip "${parentId}" for this key. Use an id that generate returned.`,
    };
  if (parent.status !== "complete") {
    return {
      ok: false,
      status: 400,
      param: parentParam,
      message: `Clip "${parentId}" is ${parent.status}, not complete. Poll get until it has an audio_url.`,
    };
  }
  const inherited = {
    prompt: parent.prompt,
    tags: parent.tags,
    instrumental: parent.instrumental,
    parentId: parent.id,
  };
  if (operation === "continuation") {
    const input = parsed.data as z.infer<typeof SCHEMAS.continuation>;
    const prompt = input.prompt ?? parent.prompt;
    return {
      ok: true,
      credits,
      specs: [
        withRender(
          {
            ...inherited,
            type: "extend",
            prompt,
            tags: input.tags ?? parent.tags,
            title: input.title ?? `${parent.title} (continued)`,
            ...(input.continue_at === undefined ? {} : { continueAtS: input.continue_at }),
          },
          account,
          store,
        ),
      ],
    };
  }
  if (operation === "stems") {
    return {
      ok: true,
      credits,
      specs: (["vocals", "accompaniment"] as const).map((stem) =>
        withRender({ ...inherited, type: "stem" as const, stem, title: `${parent.title} (${stem})` }, account, store),
      ),
    };
  }
  if (!parent.parentId) {
    return {
      ok: false,
      status: 400,
      param: "clip_id",
      message: `Clip "${parentId}" is not a continuation; concat joins a continued clip with the clips it continues.`,
    };
  }
  const chain = chainOf(parent, account, store);
  return {
    ok: true,
    credits,
    specs: [
      {
        ...inherited,
        type: "concat",
        title: `${chain[0]!.title} (full song)`,
        // Each part plays until the point where the next one continues it.
        render: () =>
          concatWav(
            chain.map((clip) => store.audioOf(clip)),
            chain.map((_, index) => chain[index + 1]?.continueAtS),
          ),
      },
    ],
  };
}

/** A clip's description with the renderer its audio is made by; also how a restored clip gets its renderer back. */
export function withRender(data: ClipData, account: KeyAccount, store: MusicStore): ClipSpec {
  return { ...data, render: rendererOf(data, account, store) };
}

function rendererOf(data: ClipData, account: KeyAccount, store: MusicStore): (seed: number) => Buffer {
  const seconds = store.clipSeconds;
  const parent = () => {
    const found = data.parentId === undefined ? undefined : store.clip(data.parentId, account);
    if (!found) throw new Error(`its source clip ${data.parentId ?? "(none)"} is gone`);
    return found;
  };
  switch (data.type) {
    case "gen":
    case "extend":
      return (seed) => synthesizeMusic(data.prompt, { seed, seconds, instrumental: data.instrumental });
    case "stem":
      // The parent's seed gives the parent's melody and backing, sung or played.
      return () =>
        synthesizeMusic(parent().prompt, {
          seed: store.seedOf(parent()),
          seconds,
          instrumental: data.stem === "accompaniment",
        });
    case "concat":
      return () => {
        const chain = chainOf(parent(), account, store);
        // Each part plays until the point where the next one continues it.
        return concatWav(
          chain.map((clip) => store.audioOf(clip)),
          chain.map((_, index) => chain[index + 1]?.continueAtS),
        );
      };
  }
}

function chainOf(last: ClipRecord, account: KeyAccount, store: MusicStore): ClipRecord[] {
  const chain = [last];
  let current = last;
  while (current.parentId && chain.length < 100) {
    const parent = store.clip(current.parentId, account);
    if (!parent) break;
    chain.unshift(parent);
    current = parent;
  }
  return chain;
}
