import { privateAddressKind } from "./private-address.js";

/** Whether a host to listen on is a loopback interface: "localhost", 127.0.0.0/8 or ::1 (bracketed or not). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  return bare.toLowerCase() === "localhost" || privateAddressKind(bare) === "loopback";
}
