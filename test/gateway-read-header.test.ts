import { describe, expect, it } from "vitest";
import { readGatewayIds, readHeader, readRetryAfterS, wasReplayed } from "../src/gateway/gateway-ids.js";

describe("reading response headers", () => {
  it("finds a header whatever the case of its name, in records and in Headers", () => {
    const record = { "x-request-id": "r1", "X-Svc-Audit-Id": "a1", "Retry-After": "2" };
    expect(readHeader(record, "X-Request-Id")).toBe("r1");
    expect(readHeader(record, "x-svc-audit-id")).toBe("a1");
    expect(readRetryAfterS(record)).toBe(2);
    expect(readHeader(new Headers({ "X-Svc-Backend-Id": "b1" }), "x-svc-backend-id")).toBe("b1");
    expect(readGatewayIds({ "x-request-id": "r1", "x-svc-audit-id": "a1", "x-svc-backend-id": "b1" })).toEqual({
      requestId: "r1",
      auditId: "a1",
      backendId: "b1",
    });
  });

  it("gives a repeated header's first value, and nothing for an absent or empty one", () => {
    expect(readHeader({ "set-cookie": ["a=1", "b=2"] }, "Set-Cookie")).toBe("a=1");
    expect(readHeader({ "x-request-id": "" }, "x-request-id")).toBeUndefined();
    expect(readHeader({ "content-type": "application/json" }, "idempotent-replayed")).toBeUndefined();
    expect(readHeader(undefined, "x-request-id")).toBeUndefined();
  });

  it("tells a replayed response by its header, in any case", () => {
    expect(wasReplayed({ "idempotent-replayed": "true" })).toBe(true);
    expect(wasReplayed({ "Idempotent-Replayed": " TRUE " })).toBe(true);
    expect(wasReplayed({ "idempotent-replayed": "false" })).toBe(false);
    expect(wasReplayed({ "content-type": "application/json" })).toBe(false);
  });
});
