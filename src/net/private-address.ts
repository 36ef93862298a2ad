import { BlockList, isIP } from "node:net";

// Most specific first, so the kind named in a refusal is the exact one (broadcast before 240/4).
const KINDS: ReadonlyArray<readonly [kind: string, subnets: readonly string[]]> = [
  ["unspecified", ["0.0.0.0/8", "::/128"]],
  ["loopback", ["127.0.0.0/8", "::1/128"]],
  ["private", ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]],
  ["carrier-grade NAT", ["100.64.0.0/10"]],
  ["link-local", ["169.254.0.0/16", "fe80::/10"]],
  ["unique-local", ["fc00::/7"]],
  ["site-local", ["fec0::/10"]],
  ["multicast", ["224.0.0.0/4", "ff00::/8"]],
  ["broadcast", ["255.255.255.255/32"]],
  [
    "reserved",
    [
      "192.0.0.0/24", // IETF protocol assignments
      "192.0.2.0/24", // documentation
      "192.88.99.0/24", // 6to4 relay anycast
      "198.18.0.0/15", // benchmarking
      "198.51.100.0/24", // documentation
      "203.0.113.0/24", // documentation
      "240.0.0.0/4", // future use
      "::/96", // IPv4-compatible (deprecated)
      "64:ff9b:1::/48", // local-use NAT64
      "100::/64", // discard-only
      "2001::/32", // Teredo: carries IPv4 addresses in obfuscated form
      "2001:2::/48", // benchmarking
      "2001:10::/28", // ORCHID
      "2001:20::/28", // ORCHIDv2
      "2001:db8::/32", // documentation
      "3fff::/20", // documentation
    ],
  ],
];

// NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses reach the IPv4 address they carry, so each IPv4
// range is blocked inside them too. IPv4-mapped addresses (::ffff:0:0/96) need no rule: BlockList
// checks them against the IPv4 rules itself.
function embeddedIn6(address: string, prefix: number): Array<readonly [string, number]> {
  const [a = 0, b = 0, c = 0, d = 0] = address.split(".").map(Number);
  const high = ((a << 8) | b).toString(16);
  const low = ((c << 8) | d).toString(16);
  return [
    [`64:ff9b::${high}:${low}`, 96 + prefix],
    [`2002:${high}:${low}::`, 16 + prefix],
  ];
}

const LISTS: ReadonlyArray<readonly [string, BlockList]> = KINDS.map(([kind, subnets]) => {
  const list = new BlockList();
  for (const subnet of subnets) {
    const [address = "", bits] = subnet.split("/");
    const prefix = Number(bits);
    if (isIP(address) === 4) {
      list.addSubnet(address, prefix, "ipv4");
      for (const [inner, innerPrefix] of embeddedIn6(address, prefix)) list.addSubnet(inner, innerPrefix, "ipv6");
    } else {
      list.addSubnet(address, prefix, "ipv6");
    }
  }
  return [kind, list] as const;
});

// Only 2000::/3 is allocated as global unicast; anything else that is not an IPv4 address in
// IPv6 form is reserved, whatever the named ranges above miss.
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet("2000::", 3, "ipv6");
GLOBAL_UNICAST.addSubnet("::ffff:0:0", 96, "ipv6");
GLOBAL_UNICAST.addSubnet("64:ff9b::", 96, "ipv6");

/**
 * The kind of non-public range `address` is in ("loopback", "private", "link-local", ...), or
 * undefined for a public address. Text that is not an IP address is "not an IP address", so callers fail closed.
 */
export function privateAddressKind(address: string): string | undefined {
  // A zone (fe80::1%eth0) is not part of the address, and BlockList answers false when given one.
  const bare = address.replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 0) return "not an IP address";
  const type = family === 4 ? "ipv4" : "ipv6";
  for (const [kind, list] of LISTS) if (list.check(bare, type)) return kind;
  if (family === 6 && !GLOBAL_UNICAST.check(bare, "ipv6")) return "reserved";
  return undefined;
}

/** Whether `address` is loopback, private, link-local, multicast or otherwise not a public unicast IP address. */
export function isPrivateAddress(address: string): boolean {
  return privateAddressKind(address) !== undefined;
}
