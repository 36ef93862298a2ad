import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { CostLedger } from "../../cost/cost-ledger.js";
import { SvcFlowError } from "../../errors.js";
import { MusicClient } from "../../gateway/music-client.js";
import type { Clip } from "../../gateway/wire.js";
import { connectGateway, DEFAULT_STATE_DIR } from "../compose-run.js";
import { UsageError, type Command, type CommandContext, type FlagSpecs } from "../command.js";
import { costLine } from "../cost-line.js";
import { checkFolderFlag } from "../path-flags.js";
import { numberFlag, parseCommandArgs } from "../parse-args.js";
import { shellWord } from "../../workflow/shell-word.js";

/** Seconds `svc-flow music` waits for the clips without --timeout. */
export const DEFAULT_MUSIC_TIMEOUT_S = 300;

const FLAGS = {
  instrumental: { type: "boolean", help: "Music without vocals" },
  out: { type: "string", value: "DIR", help: "Folder the two clips are downloaded to; default: music" },
  timeout: { type: "string", value: "S", help: `Seconds to wait for the clips; default: ${DEFAULT_MUSIC_TIMEOUT_S}` },
  clips: {
    type: "string",
    value: "ID,ID",
    help: "Wait for and download clips already submitted, without paying again",
  },
} as const satisfies FlagSpecs;

/** `svc-flow music "PROMPT" [--instrumental] [--out DIR] [--timeout S]`: submits, waits for and downloads the two clips. */
export const musicCommand: Command = {
  usage: 'svc-flow music "PROMPT" [options]\nsvc-flow music --clips ID,ID [--out DIR] [--timeout S]',
  flags: FLAGS,
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    const prompt = positionals.join(" ").trim();
    const given = values.clips
      ?.split(",")
      .map((id) => id.trim())
      .filter((id) => id !== "");
    if (given !== undefined && prompt !== "")
      throw new UsageError("Give a prompt to make new clips, or --clips to fetch submitted ones, not both.");
    if (given === undefined && prompt === "")
      throw new UsageError('Describe the music in quotes: svc-flow music "an upbeat ukulele jingle".');
    if (given?.length === 0) throw new UsageError("Expected --clips to list clip ids, e.g. --clips 1f0e...,9a7c...");
    const timeoutS = numberFlag("timeout", values.timeout, { min: 0 }) ?? DEFAULT_MUSIC_TIMEOUT_S;
    if (!(timeoutS > 0)) throw new UsageError(`Expected --timeout to be above 0 seconds, got "${values.timeout}".`);
    const out = values.out ?? "music";
    // The clips are paid for before they are saved: a folder they cannot go to is refused first.
    await checkFolderFlag("--out", path.resolve(context.cwd, out));

    const ledger = new CostLedger();
    // The local gateway keeps its jobs in runs/local-gateway, so --clips finds them in a later process.
    const stateDir = path.resolve(context.cwd, DEFAULT_STATE_DIR);
    const connection = await connectGateway({
      env: context.env,
      stateDir,
      notice: (line) => context.stderr.write(`${line}\n`),
    });
    const music = new MusicClient({ apiKey: connection.apiKey, baseURL: connection.baseURL, recorder: ledger });
    try {
      let clipIds = given ?? [];
      let requestId: string | undefined;
      if (given === undefined) {
        const submitted = await music.generate({
          prompt,
          ...(values.instrumental === true ? { instrumental: true } : {}),
          signal: context.signal,
        });
        clipIds = submitted.clips.map((clip) => clip.id);
        requestId = submitted.ids.requestId;
        // Written before waiting: a run cut short can still fetch what it paid for.
        context.stdout.write(`clips ${clipIds.join(" ")}\n`);
      }
      const recover = `svc-flow music --clips ${clipIds.join(",")} --out ${shellWord(out)}`;
      context.stderr.write(
        `Waiting for ${clipIds.length} clip(s) (up to ${timeoutS} s).${recover === undefined ? "" : ` If this stops, fetch them without paying again: ${recover}`}\n`,
      );
      let clips: Clip[];
      try {
        ({ clips } = await music.waitForClips(clipIds, {
          signal: context.signal,
          timeoutMs: timeoutS * 1000,
          onPoll: progress(context),
        }));
      } catch (error) {
        if (error instanceof SvcFlowError && error.code === "music_failed") {
          if (requestId !== undefined) ledger.refund(requestId);
        } else if (recover !== undefined && !(error instanceof SvcFlowError && error.code === "not_found")) {
          // A clip the gateway does not know will not finish; the hint would send the user round again.
          context.stderr.write(`The clips may still finish: ${recover}\n`);
        }
        throw error;
      }
      const folder = path.resolve(context.cwd, out);
      await mkdir(folder, { recursive: true });
      for (const clip of clips) {
        const audio = await music.download(clip, { signal: context.signal });
        const file = path.join(folder, `${clip.id}.${extensionOf(clip, audio.contentType)}`);
        await writeFile(file, audio.bytes);
        context.stdout.write(`${path.relative(context.cwd, file) || file}\n`);
      }
      return 0;
    } finally {
      if (ledger.entries().length > 0) context.stderr.write(`${costLine(ledger)}\n`);
      await music.close();
      await connection.close();
    }
  },
};

// One stderr line each time a clip's status changes, so a long wait shows it is alive.
function progress(context: CommandContext): (clips: readonly Clip[]) => void {
  const started = Date.now();
  let last = "";
  return (clips) => {
    const states = clips
      .map((clip) => `${clip.id.slice(0, 8)} ${clip.audio_url ? "ready" : (clip.status ?? "pending")}`)
      .join(", ");
    if (states === last) return;
    last = states;
    context.stderr.write(`clips: ${states} (${Math.round((Date.now() - started) / 1000)} s)\n`);
  };
}

const TYPES: Readonly<Record<string, string>> = {
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/wave": "wav",
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
  "audio/ogg": "ogg",
  "audio/flac": "flac",
  "audio/aac": "aac",
  "audio/mp4": "m4a",
};

function extensionOf(clip: Clip, contentType: string | undefined): string {
  const fromType = contentType === undefined ? undefined : TYPES[contentType.split(";")[0]!.trim().toLowerCase()];
  if (fromType !== undefined) return fromType;
  const fromUrl = /\.([a-z0-9]{2,4})(?:[?#]|$)/i.exec(clip.audio_url ?? "")?.[1]?.toLowerCase();
  return fromUrl ?? "mp3";
}
