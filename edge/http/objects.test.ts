import { beforeAll, describe, expect, it } from "vitest";
import { rangeKeys } from "../../proto/range/index.ts";
import { b64, fetchWith, fixture, seedBucket, testEnv } from "../testing/fixture.ts";
import { parseRange } from "./objects.ts";

describe.skipIf(fixture === null)("GET /v1/<network>/… sealed objects", () => {
  beforeAll(seedBucket);
  const get = fetchWith(testEnv("none"));
  const key = rangeKeys("mainnet", 10, 66316).data.shielded;
  const stored = () => b64(fixture!.seed.objects[key]!);

  it("serves a sealed object whole, immutable for a year, with an ETag", async () => {
    const res = await get(`https://edge.test/${key}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("etag")).toMatch(/^"/);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(stored());
  });

  it("answers a Range with 206 and a matching If-None-Match with 304", async () => {
    const res = await get(`https://edge.test/${key}`, { headers: { range: "bytes=5-24" } });
    expect(res.status).toBe(206);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(stored().subarray(5, 25));
    const etag = (await get(`https://edge.test/${key}`)).headers.get("etag")!;
    const again = await get(`https://edge.test/${key}`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });

  it("does not serve keys outside the sealed layout or other networks", async () => {
    expect((await get("https://edge.test/v1/mainnet/secret.txt")).status).toBe(404);
    expect((await get("https://edge.test/v1/regtest/r10/00000000.full.bin")).status).toBe(404);
  });
});

describe("parseRange", () => {
  it("reads the three byte-range forms and refuses unsatisfiable ones", () => {
    expect(parseRange("bytes=0-9", 100)).toEqual({ offset: 0, length: 10 });
    expect(parseRange("bytes=90-", 100)).toEqual({ offset: 90, length: 10 });
    expect(parseRange("bytes=-5", 100)).toEqual({ offset: 95, length: 5 });
    expect(parseRange("bytes=100-", 100)).toBe("invalid");
    expect(parseRange(null, 100)).toBeNull();
  });
});
