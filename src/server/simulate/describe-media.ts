import { audioTokens, videoTokens } from "../../catalog/tokens.js";
import { analyseAudio, noteName } from "../../media/analyse-audio.js";
import { probeMp3 } from "../../media/mp3.js";
import { probeMp4 } from "../../media/mp4.js";
import { decodeWav, mixToMono } from "../../media/wav.js";

/** One or two sentences about an audio clip: length, encoding, and for WAV its loudness and pitch. */
export function describeAudio(bytes: Buffer, format: string, label: string): string {
  if (format === "wav") {
    const wav = decodeWav(bytes);
    if (!wav) return `${capital(label)} could not be decoded as WAV.`;
    const channels =
      wav.channels.length === 1 ? "mono" : wav.channels.length === 2 ? "stereo" : `${wav.channels.length}-channel`;
    const encoding = wav.encoding === "float" ? `${wav.bitsPerSample}-bit float` : `${wav.bitsPerSample}-bit PCM`;
    const head = `${capital(label)} is a ${seconds(wav.seconds)} ${channels} WAV clip at ${kilohertz(wav.sampleRate)} (${encoding}), ${audioTokens(wav.seconds)} prompt tokens of audio.`;
    const analysis = analyseAudio(mixToMono(wav.channels), wav.sampleRate);
    if (analysis.silent) return `${head} It is silent.`;
    const pitch =
      analysis.dominantHz === undefined
        ? ""
        : `; its dominant frequency is about ${Math.round(analysis.dominantHz)} Hz (${noteName(analysis.dominantHz)})`;
    return `${head} Its loudness is ${analysis.rmsDb.toFixed(1)} dBFS RMS (peak ${analysis.peakDb.toFixed(1)} dBFS)${pitch}.`;
  }
  if (format === "mp3") {
    const mp3 = probeMp3(bytes);
    if (!mp3) return `${capital(label)} could not be decoded as MP3.`;
    const rate = mp3.variableBitrate
      ? `a variable bitrate averaging ${mp3.bitrateKbps} kbit/s`
      : `${mp3.bitrateKbps} kbit/s`;
    return `${capital(label)} is a ${seconds(mp3.seconds)} ${mp3.channels === 1 ? "mono" : "stereo"} MP3 at ${rate} and ${kilohertz(mp3.sampleRate)}, ${mp3.frames} frames, ${audioTokens(mp3.seconds)} prompt tokens of audio.`;
  }
  return `${capital(label)} is in ${format} format, which I cannot decode; send mp3 or wav.`;
}

/** One sentence about an MP4/QuickTime video: length, frame size, codecs, and its prompt tokens. */
export function describeVideo(bytes: Buffer, label: string): string {
  const video = probeMp4(bytes);
  if (!video) return `${capital(label)} could not be decoded as an MP4 video.`;
  const size = video.width && video.height ? ` at ${video.width}x${video.height}` : "";
  const codec = video.videoCodec ? ` (${video.videoCodec})` : "";
  const sound = video.audioCodec ? ` with an audio track (${video.audioCodec})` : " without an audio track";
  return `${capital(label)} is a ${seconds(video.seconds)} video${size}${codec}${sound}, ${videoTokens(video.seconds)} prompt tokens of video.`;
}

function seconds(value: number): string {
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} s`;
}

function kilohertz(rate: number): string {
  return `${Number((rate / 1000).toFixed(2))} kHz`;
}

function capital(text: string): string {
  return text[0]!.toUpperCase() + text.slice(1);
}
