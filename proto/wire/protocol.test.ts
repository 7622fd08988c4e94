import { Code, type ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { quoteInput } from "../quote.ts";
import { MAX_DEADLINE_MS, parseTimeoutMs, timeoutHeaderValue, type WireProtocol } from "./protocol.ts";

/** The deadline of a request with header `name: value` in `protocol`. */
const parseDeadlineMs = (protocol: WireProtocol, headers: Headers) =>
  parseTimeoutMs(
    protocol,
    headers.get(protocol.startsWith("connect") ? "connect-timeout-ms" : "grpc-timeout"),
  );

describe("parseTimeoutMs", () => {
  const h = (name: string, value: string) => new Headers({ [name]: value });
  it("reads both headers, clamps huge deadlines and refuses malformed ones as connect-es does", () => {
    expect(parseDeadlineMs("grpc-web", new Headers())).toBeUndefined();
    expect(parseDeadlineMs("grpc-web", h("grpc-timeout", "5S"))).toBe(5000);
    expect(parseDeadlineMs("connect-stream", h("connect-timeout-ms", "250"))).toBe(250);
    expect(parseDeadlineMs("grpc-web", h("grpc-timeout", "597H"))).toBe(MAX_DEADLINE_MS);
    expect(parseDeadlineMs("connect-unary", h("connect-timeout-ms", "9999999999"))).toBe(MAX_DEADLINE_MS);
    for (const [name, value] of [
      ["grpc-timeout", "abc"],
      ["grpc-timeout", "123456789S"],
      ["grpc-timeout", "5"],
      ["connect-timeout-ms", "-5"],
      ["connect-timeout-ms", "12345678901"],
      ["connect-timeout-ms", "1.5"],
    ] as const) {
      const protocol = name === "grpc-timeout" ? "grpc-web" : "connect-stream";
      expect(() => parseDeadlineMs(protocol, h(name, value)), `${name}: ${value}`).toThrow(
        expect.objectContaining({ code: Code.InvalidArgument }),
      );
    }
  });

  it("quotes at most a short prefix of a malformed value", () => {
    const long = "9".repeat(30_000);
    let message = "";
    try {
      parseDeadlineMs("connect-unary", h("connect-timeout-ms", long));
    } catch (err) {
      message = (err as ConnectError).rawMessage;
    }
    expect(message).toContain(quoteInput(long));
    expect(message.length).toBeLessThan(120);
  });
});

describe("timeoutHeaderValue", () => {
  it("writes the remaining time in each protocol's syntax, whole seconds past 8 digits, never above the clamp", () => {
    expect(timeoutHeaderValue("grpc-web", 1500)).toBe("1500m");
    expect(timeoutHeaderValue("connect-unary", 1500)).toBe("1500");
    expect(timeoutHeaderValue("grpc", 100_000_000)).toBe("100000S");
    expect(timeoutHeaderValue("grpc-web", 2 ** 40)).toBe(`${Math.floor(MAX_DEADLINE_MS / 1000)}S`);
    expect(parseTimeoutMs("grpc-web", timeoutHeaderValue("grpc-web", MAX_DEADLINE_MS))).toBeLessThanOrEqual(
      MAX_DEADLINE_MS,
    );
  });
});
