import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { sendError } from "./send-response.js";

/** Path under the root where generated images are served when `imageLinks` is on. */
export const IMAGE_PATH_PREFIX = "/images/";

// Inline PNGs of an image model's reply, as the simulation writes them (spec, section 2).
const INLINE_PNG = /data:image\/png;base64,([A-Za-z0-9+/=]+)/g;

/**
 * Generated images kept to be served at a link, for `imageLinks: true`: relays that keep generated
 * images on their own storage answer with a link instead of a data URI. The newest `capacity`
 * images are kept; an id is an unguessable UUID, so no key is needed to fetch one.
 */
export class ImageStore {
  readonly #images = new Map<string, Buffer>();
  readonly #capacity: number;

  constructor(capacity = 256) {
    this.#capacity = capacity;
  }

  /** A reply's text with each inline PNG stored and replaced by its link under `rootURL`. */
  linkImages(content: string, rootURL: string): string {
    return content.replace(INLINE_PNG, (_match, data: string) => {
      const id = randomUUID();
      this.#images.set(id, Buffer.from(data, "base64"));
      // Oldest first in a Map: past capacity the oldest image goes.
      if (this.#images.size > this.#capacity) this.#images.delete(this.#images.keys().next().value!);
      return `${rootURL}${IMAGE_PATH_PREFIX}${id}.png`;
    });
  }

  /** `GET {root}/images/{id}.png`: a stored image, or 404. */
  serve(request: IncomingMessage, response: ServerResponse, file: string): void {
    const image = this.#images.get(file.replace(/\.png$/, ""));
    if (image === undefined)
      return sendError(response, 404, "not_found", "No image here: the link is unknown or the image has expired.");
    response.writeHead(200, {
      "content-type": "image/png",
      "content-length": image.length,
      "cache-control": "private, max-age=3600",
    });
    response.end(request.method === "HEAD" ? undefined : image);
  }
}
