import { htmlText } from "./escape-html.js";

// Only paths the artifact store writes are used as src: nothing in an output can point the page elsewhere.
const ARTIFACT_PATH = /^artifacts\/[A-Za-z0-9_-]+\.[a-z0-9]+$/;

/** An image or audio file under the run's artifacts/, as step outputs reference it. */
export interface MediaRef {
  readonly artifact: string;
  readonly mime: string;
  readonly bytes?: number;
  readonly width?: number;
  readonly height?: number;
  readonly title?: string;
}

/** Whether a value is an artifact reference the report can show: an image or audio file under artifacts/. */
export function isMediaRef(value: unknown): value is MediaRef {
  if (typeof value !== "object" || value === null) return false;
  const { artifact, mime } = value as { artifact?: unknown; mime?: unknown };
  return (
    typeof artifact === "string" &&
    ARTIFACT_PATH.test(artifact) &&
    typeof mime === "string" &&
    /^(image|audio)\//.test(mime)
  );
}

/** Every media reference inside a value, in order, each artifact once. */
export function findMedia(value: unknown, found: MediaRef[] = [], seen = new Set<string>()): MediaRef[] {
  if (isMediaRef(value)) {
    if (!seen.has(value.artifact)) {
      seen.add(value.artifact);
      found.push(value);
    }
  } else if (Array.isArray(value)) {
    for (const element of value) findMedia(element, found, seen);
  } else if (typeof value === "object" && value !== null) {
    for (const element of Object.values(value)) findMedia(element, found, seen);
  }
  return found;
}

/** One shown image or clip: where it came from (a step instance or an input) and its caption. */
export interface MediaTile {
  /** The anchor id, `media-3`. */
  readonly id: string;
  readonly ref: MediaRef;
  /** The step key (`posters[1].final`) or input name (`photos[0]`) it belongs to. */
  readonly owner: string;
  /** The caption's parts: a bold title, then details. */
  readonly title: string;
  readonly detail?: string;
}

/**
 * The page's images and clips, each shown once with its caption: one tile per step instance (or
 * input) and artifact, so two steps that made equal bytes still get a tile each, while the same
 * output seen again (in the run's outputs, a map's list) links to its tile instead of repeating it.
 */
export class MediaIndex {
  readonly #tiles: MediaTile[] = [];
  readonly #byArtifact = new Map<string, MediaTile[]>();
  /** Values (input strings) that stand for a stored file. */
  readonly #aliases: ReadonlyMap<string, MediaRef>;

  constructor(aliases: ReadonlyMap<string, MediaRef> = new Map()) {
    this.#aliases = aliases;
  }

  /** Adds a tile unless this owner already has one for the artifact; returns the tile. */
  add(ref: MediaRef, owner: string, title: string, detail?: string): MediaTile {
    const same = this.#byArtifact.get(ref.artifact) ?? [];
    const existing = same.find((tile) => tile.owner === owner);
    if (existing !== undefined) return existing;
    const tile: MediaTile = {
      id: `media-${this.#tiles.length + 1}`,
      ref,
      owner,
      title,
      ...(detail === undefined ? {} : { detail }),
    };
    this.#tiles.push(tile);
    same.push(tile);
    this.#byArtifact.set(ref.artifact, same);
    return tile;
  }

  /** The stored file an input string (a path or data URI) stands for. */
  alias(value: string): MediaRef | undefined {
    return this.#aliases.get(value);
  }

  /**
   * The tile of an artifact: the owner's own; else, among the owner's map items' tiles (or all),
   * the next one `seen` has not linked yet, so a list of equal images links each to its own tile.
   */
  tileOf(ref: MediaRef, owner?: string, seen?: Map<string, number>): MediaTile | undefined {
    const same = this.#byArtifact.get(ref.artifact);
    if (same === undefined) return undefined;
    const own = same.find((tile) => tile.owner === owner);
    if (own !== undefined) return own;
    const items = owner === undefined ? [] : same.filter((tile) => tile.owner.startsWith(`${owner}[`));
    const candidates = items.length > 0 ? items : same;
    const next = seen?.get(ref.artifact) ?? 0;
    seen?.set(ref.artifact, next + 1);
    return candidates[next % candidates.length];
  }

  /** Tiles whose owner passes `filter`, in the order they were added. */
  tiles(filter: (tile: MediaTile) => boolean = () => true): MediaTile[] {
    return this.#tiles.filter(filter);
  }
}

function facts(ref: MediaRef): string {
  const parts: string[] = [];
  if (ref.width !== undefined && ref.height !== undefined) parts.push(`${ref.width}×${ref.height}`);
  if (ref.bytes !== undefined) parts.push(`${Math.max(1, Math.round(ref.bytes / 1024))} KB`);
  return parts.join(" · ");
}

/** One tile: a thumbnail that opens the full-size image, or an audio player, with its caption. */
export function renderTile(tile: MediaTile, lazy = false): string {
  const { ref } = tile;
  const caption = `<figcaption><strong>${htmlText(tile.title)}</strong>${tile.detail === undefined ? "" : `<span class="detail">${htmlText(tile.detail)}</span>`}<span class="media-facts">${htmlText(facts(ref))}</span></figcaption>`;
  if (ref.mime.startsWith("image/")) {
    const alt = tile.detail === undefined ? tile.title : `${tile.title}: ${tile.detail}`;
    return `<figure class="tile" id="${tile.id}"><a href="${htmlText(ref.artifact)}" target="_blank" title="Open full size"><img src="${htmlText(ref.artifact)}" alt="${htmlText(alt)}" loading="${lazy ? "lazy" : "eager"}"></a>${caption}</figure>`;
  }
  return `<figure class="tile clip" id="${tile.id}"><audio controls preload="metadata" src="${htmlText(ref.artifact)}"></audio>${caption}</figure>`;
}

/** A grid of tiles: thumbnails first, then audio players. */
export function renderTiles(tiles: readonly MediaTile[]): string {
  if (tiles.length === 0) return "";
  const images = tiles.filter((tile) => tile.ref.mime.startsWith("image/"));
  const clips = tiles.filter((tile) => !tile.ref.mime.startsWith("image/"));
  const grid = (list: readonly MediaTile[], className: string) =>
    list.length === 0
      ? ""
      : `<div class="${className}">${list.map((tile, index) => renderTile(tile, index >= 24)).join("")}</div>`;
  return grid(images, "thumbs") + grid(clips, "clips");
}

/** A link to a tile shown elsewhere on the page, in place of the image itself. */
export function renderChip(tile: MediaTile): string {
  const icon = tile.ref.mime.startsWith("image/") ? "▣" : "♪";
  return `<a class="chip" href="#${tile.id}">${icon} ${htmlText(tile.title)}${tile.detail === undefined ? "" : ` · ${htmlText(tile.detail)}`}</a>`;
}
