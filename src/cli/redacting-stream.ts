import type { Writable } from "node:stream";
import { redactSecrets } from "../errors.js";

/**
 * The stream as commands see it, with every string written passed through redactSecrets: a
 * message quoting a server (which may echo a key in any form) cannot carry a secret out.
 * Everything else (isTTY, columns, events) is the stream's own.
 */
export function redactingStream<T extends Writable>(stream: T): T {
  const write = (chunk: unknown, ...rest: unknown[]): boolean =>
    (stream.write as (...args: unknown[]) => boolean)(
      typeof chunk === "string" ? redactSecrets(chunk) : chunk,
      ...rest,
    );
  return new Proxy(stream, {
    get(target, property) {
      if (property === "write") return write;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
