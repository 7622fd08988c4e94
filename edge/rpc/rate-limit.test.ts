import { env } from "cloudflare:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import { clientsFor, collect } from "../testing/clients.ts";
import { fixture, seedBucket, testEnv } from "../testing/fixture.ts";
import { clientKeyOf } from "./rate-limit.ts";

const bindings = env as unknown as Record<string, RateLimit | undefined>;
const NODE_LIMIT = 3; // vitest.config.ts: TEST_NODE_RATE_LIMIT
const SEND_LIMIT = 2; // TEST_SEND_RATE_LIMIT

describe("clientKeyOf", () => {
  it("keys IPv4 clients by address and IPv6 clients by their /64", () => {
    const h = (ip?: string) => new Headers(ip === undefined ? {} : { "cf-connecting-ip": ip });
    expect(clientKeyOf(h("203.0.113.7"))).toBe("203.0.113.7");
    expect(clientKeyOf(h("2001:db8:0:1:aaaa::1"))).toBe("2001:db8:0:1::/64");
    expect(clientKeyOf(h("2001:0db8:0000:0001:ffff:0:0:2"))).toBe("2001:db8:0:1::/64");
    expect(clientKeyOf(h("2001:db8::1"))).toBe("2001:db8:0:0::/64");
    expect(clientKeyOf(h())).toBeUndefined();
    // Loopback: what Miniflare (wrangler dev) sets for local callers.
    expect(clientKeyOf(h("127.0.0.1"))).toBeUndefined();
    expect(clientKeyOf(h("::1"))).toBeUndefined();
  });
});

describe.skipIf(fixture === null)("per-client rate limits (Workers rate-limiting binding)", () => {
  beforeAll(seedBucket);

  it("declares wrangler.toml's bindings to workerd", async () => {
    for (const name of ["NODE_RATE_LIMIT", "SEND_RATE_LIMIT"]) {
      expect(typeof bindings[name]?.limit, name).toBe("function");
    }
  });

  const limitedEnv = testEnv("good", {
    NODE_RATE_LIMIT: bindings.TEST_NODE_RATE_LIMIT,
    SEND_RATE_LIMIT: bindings.TEST_SEND_RATE_LIMIT,
  });
  // A fresh client per run: the simulated windows are aligned to the wall clock and shared.
  const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
  const headers = (addr: string) => ({ "cf-connecting-ip": addr });

  it("answers ResourceExhausted with a retry hint once a client spends its node budget", async () => {
    const [, client] = clientsFor(limitedEnv)[1]!; // Connect (proto)
    // 2 × (limit + 1) calls: even if a window boundary falls between them, one window overflows.
    const errors: ConnectError[] = [];
    for (let i = 0; i < 2 * (NODE_LIMIT + 1); i++) {
      await client
        .getTransaction({ hash: new Uint8Array(32) }, { headers: headers(ip) })
        .catch((e) => errors.push(ConnectError.from(e)));
    }
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.code).toBe(Code.ResourceExhausted);
    expect(errors[0]!.rawMessage).toMatch(/^GetTransaction: rate limit exceeded/);
    expect(errors[0]!.metadata.get("retry-after")).toBe("60");
    expect(errors[0]!.metadata.get("grpc-retry-pushback-ms")).toBe("60000");
    // The same client over gRPC-web: the pushback travels in the (trailers-only) status.
    const [, grpcWeb] = clientsFor(limitedEnv)[0]!;
    const web = await collect(grpcWeb.getMempoolTx({}, { headers: headers(ip) }));
    expect(ConnectError.from(web.error).code).toBe(Code.ResourceExhausted);
    expect(ConnectError.from(web.error).metadata.get("grpc-retry-pushback-ms")).toBe("60000");
  });

  it("limits SendTransaction on its own budget", async () => {
    const [, client] = clientsFor(limitedEnv)[0]!;
    const sender = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
    const codes: (Code | "ok")[] = [];
    for (let i = 0; i < 2 * (SEND_LIMIT + 1); i++) {
      codes.push(
        await client.sendTransaction({ data: new Uint8Array(300) }, { headers: headers(sender) }).then(
          () => "ok" as const,
          (e) => ConnectError.from(e).code,
        ),
      );
    }
    expect(codes).toContain("ok");
    expect(codes).toContain(Code.ResourceExhausted);
  });

  it("never limits stored blocks, GetLatestBlock, GetLightdInfo or calls without a client IP", async () => {
    const [, client] = clientsFor(limitedEnv)[1]!;
    const busy = "203.0.113.250";
    for (let i = 0; i < 3 * NODE_LIMIT; i++) {
      await client.getBlock({ height: 663150n }, { headers: headers(busy) });
      await client.getLatestBlock({}, { headers: headers(busy) });
      await client.getLightdInfo({}, { headers: headers(busy) });
      const range = await collect(
        client.getBlockRange(
          { start: { height: 663150n }, end: { height: 663152n } },
          { headers: headers(busy) },
        ),
      );
      expect(range.error).toBeUndefined();
      await client.getTransaction({ hash: new Uint8Array(32) });
    }
  });
});
