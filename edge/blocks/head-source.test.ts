import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { fetchWith, fixture, seedBucket, testEnv } from "../testing/fixture.ts";

describe.skipIf(fixture === null)("a served network without a head object", () => {
  beforeAll(seedBucket);
  afterEach(() => vi.restoreAllMocks());
  // The seed holds mainnet and testnet heads only: regtest is served, but nothing of it is stored.
  const env = testEnv("none", { NETWORKS: "mainnet,regtest", HEAD_CACHE_SECONDS: "0" });
  const get = fetchWith(env);

  it("is named on /healthz, which stays 200", async () => {
    const res = await get("https://edge.test/healthz");
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^ok\n/);
    expect(text).toMatch(/warning: network regtest has no head object \(v1\/regtest\/head\.json\)/);
    expect(text).not.toMatch(/network mainnet/);
  });

  it("is logged once per isolate, at first use", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const own = testEnv("none", { NETWORKS: "regtest", HEAD_CACHE_SECONDS: "0" });
    for (let i = 0; i < 3; i++) await fetchWith(own)("https://edge.test/healthz");
    const lines = warn.mock.calls.map((c) => String(c[0])).filter((l) => l.includes("no head object"));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "warn", network: "regtest" });
  });
});
