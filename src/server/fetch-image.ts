// Simulated models may look at linked images; the gateway fetches them the way an upstream would,
// bounded in time and size so one bad link cannot hold a request.
const TIMEOUT_MS = 5000;

/** Fetches an http(s) image; undefined on any failure or when larger than `maxBytes`. */
export async function fetchImage(url: string, maxBytes: number): Promise<Buffer | undefined> {
  if (!/^https?:\/\//i.test(url)) return undefined;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: "follow" });
    if (!response.ok || !response.body) return undefined;
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > maxBytes) return undefined;
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  } catch {
    return undefined;
  }
}
