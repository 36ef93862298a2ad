import { lookup } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector } from "undici";
import { PrivateAddressError } from "../errors.js";
import { privateAddressKind } from "./private-address.js";

/**
 * dns.lookup for net.connect that fails with a PrivateAddressError when the name resolves to any
 * non-public address. Checking at connect time, on the address actually dialled, is what stops DNS rebinding.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "");
    // A name with one public and one private address is refused whole: which one is dialled is not ours to pick.
    for (const { address } of addresses) {
      const kind = privateAddressKind(address);
      if (kind !== undefined)
        return callback(new PrivateAddressError(`${hostname} resolves to ${address}, which is ${kind}`), "");
    }
    const [first] = addresses;
    if (options.all === true) return callback(null, addresses);
    if (first === undefined)
      return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "");
    return callback(null, first.address, first.family);
  });
};

const connectResolved = buildConnector({ lookup: publicOnlyLookup });

/** undici connector that refuses a non-public address with a PrivateAddressError: a literal one at once,
 * a host name on what it resolves to (publicOnlyLookup). */
export const publicOnlyConnect: buildConnector.connector = (options, callback) => {
  // net.connect never calls `lookup` for a literal IP address, so a URL (or a redirect) naming
  // 169.254.169.254 outright would pass the lookup unchecked: literals are judged here instead.
  const host = options.hostname.replace(/^\[(.*)\]$/, "$1");
  const kind = isIP(host) === 0 ? undefined : privateAddressKind(host);
  if (kind !== undefined) return callback(new PrivateAddressError(`${options.hostname} is ${kind}`), null);
  connectResolved(options, callback);
};

let shared: Agent | undefined;

/** The undici Agent that connects only to public addresses: every new connection's address, literal or
 * resolved, is checked, on the first request and on every redirect hop alike. One for the process, made
 * on first use: it has no per-caller settings, and an Agent per caller would keep a connection pool for each. */
export function publicOnlyAgent(): Agent {
  return (shared ??= new Agent({ connect: publicOnlyConnect }));
}
