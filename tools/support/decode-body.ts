const TEXT_TYPES = new Set([
  "application/json",
  "application/x-ndjson",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-www-form-urlencoded",
  "application/csv",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/graphql",
]);

/** The media type of a Content-Type header, lower-cased, without parameters ("" when absent). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Whether a Content-Type names text a model can read; undefined when there is no Content-Type. */
export function isTextType(contentType: string | undefined): boolean | undefined {
  const type = mediaType(contentType);
  if (type === "") return undefined;
  return type.startsWith("text/") || TEXT_TYPES.has(type) || type.endsWith("+json") || type.endsWith("+xml");
}

/** Decodes body bytes with the charset the Content-Type names, UTF-8 when it names none or an unknown one. */
export function decodeBody(bytes: Uint8Array, contentType: string | undefined): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1];
  if (charset !== undefined) {
    try {
      return new TextDecoder(charset).decode(bytes);
    } catch {
      // An unknown label: UTF-8 below is the best guess, and replacement characters show where it was wrong.
    }
  }
  return new TextDecoder("utf-8").decode(bytes);
}
