import { createHash } from "node:crypto";

const MAX_KEY_LENGTH = 255;

/**
 * The idempotency key of one model's attempts in a call: the caller's key with the model id, so
 * retries of a model replay a billed answer while a fallback model is a new call. Too long a
 * pair is shortened with a hash, keeping it deterministic across processes.
 */
export function modelIdempotencyKey(key: string, modelId: string): string {
  const combined = `${key}:${modelId}`;
  if (combined.length <= MAX_KEY_LENGTH) return combined;
  return `${key.slice(0, 150)}:${createHash("sha256").update(combined).digest("hex")}`;
}
