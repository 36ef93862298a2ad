import { isIP } from "node:net";
import { ToolInputError, redactSecrets } from "../../src/errors.js";
import { privateAddressKind } from "../../src/net/private-address.js";

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
