import { lookup } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { Agent } from "undici";
import { ToolInputError, redactSecrets } from "../../src/errors.js";
import { privateAddressKind } from "./private-address.js";

/** fetch_url's refusal of a private network address; `reason` says which address and why, e.g. "127.0.0.1 is loopback". */
export function privateNetworkRefusal(reason: string): ToolInputError {
  return new ToolInputError(
    `fetch_url does not fetch private network addresses (${redactSecrets(reason)}). ` +
      "To allow it, create the tool with allowPrivateNetwork: true " +
      "(in a workflow file: tools: { fetchUrl: { allowPrivateNetwork: true } }; for svc-flow agent: --allow-private-network).",
    { code: "url_refused" },
  );
}

/** Refuses a URL whose host is a literal IP address outside public unicast; host names pass, to be checked once resolved. */
export function checkPublicHost(url: URL): void {
  // WHATWG URL has already turned 2130706433, 0x7f.1 and 0177.0.0.1 into 127.0.0.1, and brackets IPv6.
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) === 0) return;
  const kind = privateAddressKind(host);
  if (kind !== undefined) throw privateNetworkRefusal(`${url.hostname} is ${kind}`);
}

/**
 * dns.lookup for net.connect that fails with the refusal when the name resolves to any non-public
 * address. Checking at connect time, on the address actually dialled, is what stops DNS rebinding.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "");
    // A name with one public and one private address is refused whole: which one is dialled is not ours to pick.
    for (const { address } of addresses) {
      const kind = privateAddressKind(address);
      if (kind !== undefined) return callback(privateNetworkRefusal(`${hostname} resolves to ${address}, which is ${kind}`), "");
    }
    const [first] = addresses;
    if (options.all === true) return callback(null, addresses);
    if (first === undefined) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "");
    return callback(null, first.address, first.family);
  });
};

let shared: Agent | undefined;

/** The undici Agent that connects only to public addresses: every new connection's resolved address
 * is checked. One for the process, made on first use: it has no per-tool settings, and an Agent per
 * tool (one per agent run or workflow step) would keep a connection pool for each. */
export function publicOnlyAgent(): Agent {
  return (shared ??= new Agent({ connect: { lookup: publicOnlyLookup } }));
}
