import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPrivateAddress, privateAddressKind } from "../src/net/private-address.js";

/** The 6to4 address (2002::/16) that carries `ipv4`. */
function sixToFour(ipv4: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = ipv4.split(".").map(Number);
  return `2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::1`;
}

describe("isPrivateAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["::1", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["169.254.169.254", "link-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["fd00:ec2::254", "unique-local"],
    ["fc00::1", "unique-local"],
    ["fec0::1", "site-local"],
    ["224.0.0.251", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.10", "reserved"],
    ["198.18.0.1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["::127.0.0.1", "reserved"],
    ["4000::1", "reserved"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "link-local"],
    ["64:ff9b::10.0.0.1", "private"],
    ["2002:7f00:1::1", "loopback"],
    ["localhost", "not an IP address"],
  ])("calls %s %s", (address, kind) => {
    expect(privateAddressKind(address)).toBe(kind);
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
  ])("lets the public address %s through", (address) => {
    expect(privateAddressKind(address)).toBeUndefined();
    expect(isPrivateAddress(address)).toBe(false);
  });

  it("judges an IPv4 address the same in IPv4-mapped, NAT64 and 6to4 form", () => {
    fc.assert(
      fc.property(fc.ipV4(), (ipv4) => {
        const kind = privateAddressKind(ipv4);
        expect(privateAddressKind(`::ffff:${ipv4}`)).toBe(kind);
        expect(privateAddressKind(`64:ff9b::${ipv4}`)).toBe(kind);
        expect(privateAddressKind(sixToFour(ipv4))).toBe(kind);
      }),
    );
  });

  it("refuses every address in 10/8, 127/8 and 169.254/16", () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(fc.constantFrom("10", "127", "169.254"), octet, octet, octet, (prefix, b, c, d) => {
        const address = [...prefix.split("."), b, c, d].slice(0, 4).join(".");
        expect(isPrivateAddress(address)).toBe(true);
      }),
    );
  });

  it("refuses every IPv6 address outside global unicast (2000::/3) that does not carry an IPv4 address", () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        const first = Number.parseInt(address.split(":")[0] || "0", 16);
        const global = first >= 0x2000 && first <= 0x3fff;
        const carriesIpv4 = /^(::ffff:|0*:0*:0*:0*:0*:ffff:|64:ff9b::)/i.test(address);
        if (!global && !carriesIpv4) expect(isPrivateAddress(address)).toBe(true);
      }),
    );
  });
});
