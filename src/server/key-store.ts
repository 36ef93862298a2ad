import type { KeyConfig } from "./config.js";
import { KeyAccount } from "./key-account.js";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The gateway's keys, looked up by secret. */
export class KeyStore {
  readonly #accounts = new Map<string, KeyAccount>();
  // The last Authorization header that named a key, and that key's account: a client sends the
  // same header on every request, and comparing it costs less than parsing it and looking it up.
  #lastHeader: string | undefined;
  #lastAccount: KeyAccount | undefined;

  constructor(keys: readonly KeyConfig[]) {
    for (const key of keys) this.#accounts.set(key.key, new KeyAccount(key));
  }

  /** The account for a presented key; undefined when unknown. */
  find(key: string): KeyAccount | undefined {
    return this.#accounts.get(key);
  }

  /** The account an `Authorization: Bearer <key>` header value names; undefined when malformed or unknown. */
  findBearer(header: string): KeyAccount | undefined {
    if (header === this.#lastHeader) return this.#lastAccount;
    const match = BEARER.exec(header);
    const account = match ? this.find(match[1]!) : undefined;
    if (account) {
      this.#lastHeader = header;
      this.#lastAccount = account;
    }
    return account;
  }

  /** True when a header value has the `Bearer <key>` form, whether or not the key exists. */
  static isBearer(header: string): boolean {
    return BEARER.test(header);
  }

  /** Every account, in config order. */
  accounts(): KeyAccount[] {
    return [...this.#accounts.values()];
  }
}
