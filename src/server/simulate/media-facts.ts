import { analyseAudio, noteName } from "../../media/analyse-audio.js";
import { decodeImage } from "../../media/decode-image.js";
import { probeMp3 } from "../../media/mp3.js";
import { probeMp4 } from "../../media/mp4.js";
import { parseDataUri } from "../../media/probe.js";
import { decodeWav, mixToMono } from "../../media/wav.js";
import type { ContentPart } from "../../gateway/wire.js";
import { dominantColours } from "./colour-names.js";
import { brightness } from "./describe-image.js";

/** What the simulated model saw in an image. */
export interface ImageFacts {
  readonly kind: "image";
  readonly width: number;
  readonly height: number;
  readonly shape: "square" | "landscape" | "portrait";
  /** Colour names, largest share first (empty when the pixels are not decoded). */
  readonly colours: readonly string[];
  /** Mean luminance 0..100; undefined when the pixels are not decoded. */
  readonly brightness?: number;
}

/** What the simulated model heard in an audio clip. */
export interface AudioFacts {
  readonly kind: "audio";
  readonly seconds: number;
  readonly channels: number;
  readonly silent: boolean;
  /** The nearest note to the dominant frequency, e.g. "B2". */
  readonly note?: string;
  readonly hz?: number;
  /** RMS level in dBFS. */
  readonly loudnessDb?: number;
}

/** What the simulated model saw in a video. */
export interface VideoFacts {
  readonly kind: "video";
  readonly seconds: number;
  readonly width?: number;
  readonly height?: number;
  readonly sound: boolean;
}

/** One media part, analysed. */
export type MediaFacts = ImageFacts | AudioFacts | VideoFacts;

const MIN_SHARE = 0.04;

/** The facts of every media part the model can read (unreadable parts are left out). */
export async function readMediaFacts(
  parts: readonly ContentPart[],
  fetchImage?: (url: string) => Promise<Buffer | undefined>,
): Promise<MediaFacts[]> {
  const found: MediaFacts[] = [];
  for (const part of parts) {
    const facts = await factsOf(part, fetchImage);
    if (facts) found.push(facts);
  }
  return found;
}

async function factsOf(
  part: ContentPart,
  fetchImage?: (url: string) => Promise<Buffer | undefined>,
): Promise<MediaFacts | undefined> {
  if (part.type === "input_audio")
    return audioFacts(Buffer.from(part.input_audio.data, "base64"), part.input_audio.format.toLowerCase());
  const url =
    part.type === "video_url" ? part.video_url.url : part.type === "image_url" ? part.image_url.url : undefined;
  if (url === undefined) return undefined;
  if (part.type === "video_url" || /^data:video\//i.test(url)) return videoFacts(parseDataUri(url)?.bytes);
  const bytes = /^https?:\/\//i.test(url) ? await fetchImage?.(url) : parseDataUri(url)?.bytes;
  return bytes ? imageFacts(bytes) : undefined;
}

function imageFacts(bytes: Buffer): ImageFacts | undefined {
  const image = decodeImage(bytes);
  if (!image) return undefined;
  const { width, height } = image.facts;
  const shape = width === height ? "square" : width > height ? "landscape" : "portrait";
  if (!image.raster) return { kind: "image", width, height, shape, colours: [] };
  const colours = dominantColours(image.raster)
    .filter((share) => share.share >= MIN_SHARE && share.name !== "transparent")
    .slice(0, 4)
    .map((share) => share.name);
  return { kind: "image", width, height, shape, colours, brightness: brightness(image.raster) };
}

function audioFacts(bytes: Buffer, format: string): AudioFacts | undefined {
  if (format === "wav") {
    const wav = decodeWav(bytes);
    if (!wav) return undefined;
    const analysis = analyseAudio(mixToMono(wav.channels), wav.sampleRate);
    const hz = analysis.dominantHz;
    return {
      kind: "audio",
      seconds: wav.seconds,
      channels: wav.channels.length,
      silent: analysis.silent,
      ...(hz === undefined ? {} : { hz, note: noteName(hz) }),
      ...(analysis.silent ? {} : { loudnessDb: analysis.rmsDb }),
    };
  }
  if (format === "mp3") {
    const mp3 = probeMp3(bytes);
    return mp3 ? { kind: "audio", seconds: mp3.seconds, channels: mp3.channels, silent: false } : undefined;
  }
  return undefined;
}

function videoFacts(bytes: Buffer | undefined): VideoFacts | undefined {
  const video = bytes ? probeMp4(bytes) : undefined;
  if (!video) return undefined;
  return {
    kind: "video",
    seconds: video.seconds,
    sound: video.audioCodec !== undefined,
    ...(video.width ? { width: video.width } : {}),
    ...(video.height ? { height: video.height } : {}),
  };
}
