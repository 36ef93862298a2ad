import { mergePrices, type PriceTable } from "../catalog/prices.js";
import { summarize, type GatewayStats } from "./billing.js";
import { effectiveKeys, type GatewayConfig } from "./config.js";
import { DialectChoice } from "./dialects/index.js";
import { FaultInjector } from "./faults.js";
import { IdempotencyStore } from "./idempotency-store.js";
import { ImageStore } from "./image-store.js";
import { KeyStore } from "./key-store.js";
import { MusicStore } from "./music-store.js";
import { ReplyCache } from "./reply-cache.js";

/** Everything a route needs: the config, keys, prices, faults and music jobs of one gateway. */
export class GatewayContext {
  readonly config: GatewayConfig;
  readonly keys: KeyStore;
  readonly prices: PriceTable;
  readonly faults: FaultInjector;
  readonly music: MusicStore;
  readonly replies = new ReplyCache();
  /** The relay dialect each reply and error is sent in. */
  readonly dialects: DialectChoice;
  /** Billed responses by API key and Idempotency-Key, replayed to repeats. */
  readonly idempotency = new IdempotencyStore();
  /** Generated images served at links, when `imageLinks` is on. */
  readonly images = new ImageStore();
  /** Requests that presented no valid key. */
  unauthenticated = 0;
  /** `http://host:port`, set once the server listens; music audio URLs are built on it. */
  rootURL = "";
  /** Whether linked images may be fetched from loopback, private and other non-public addresses. */
  readonly allowPrivateImageURLs: boolean;

  constructor(config: GatewayConfig, options: { allowPrivateImageURLs: boolean }) {
    this.config = config;
    this.allowPrivateImageURLs = options.allowPrivateImageURLs;
    this.keys = new KeyStore(effectiveKeys(config));
    this.dialects = new DialectChoice(config.dialect);
    this.prices = mergePrices(config.prices);
    this.faults = new FaultInjector(config.faults);
    // A refunded music call was in effect not billed, so a repeat of its key must run again.
    this.music = new MusicStore(config.music, config.faults.seed, (owner, requestId) =>
      this.idempotency.forget(owner, requestId),
    );
  }

  /** A snapshot of every key's bookkeeping. */
  stats(): GatewayStats {
    return summarize(
      this.keys.accounts().map((account) => account.stats()),
      this.unauthenticated,
    );
  }
}
