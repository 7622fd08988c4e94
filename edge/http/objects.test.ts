import { beforeAll, describe, expect, it } from "vitest";
import { rangeKeys } from "../../proto/range/index.ts";
import { b64, fetchWith, fixture, seedBucket, testEnv } from "../testing/fixture.ts";
import { answerFor, parseRange } from "./conditional.ts";

describe.skipIf(fixture === null)("GET /v1/<network>/… sealed objects", () => {
  beforeAll(seedBucket);
  const get = fetchWith(testEnv("none"));
  const key = rangeKeys("mainnet", 10, 66316).data.shielded;
  const url = `https://edge.test/${key}`;
  const stored = () => b64(fixture!.seed.objects[key]!);
  const etagOf = async () => (await get(url)).headers.get("etag")!;
  const bodyOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());

  it("serves a sealed object whole, immutable for a year, with an ETag", async () => {
    const res = await get(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("etag")).toMatch(/^"/);
    expect(await bodyOf(res)).toEqual(stored());
  });

  it("answers a Range with 206 and a matching If-None-Match with 304", async () => {
    const res = await get(url, { headers: { range: "bytes=5-24" } });
    expect(res.status).toBe(206);
    expect(await bodyOf(res)).toEqual(stored().subarray(5, 25));
    const etag = await etagOf();
    expect((await get(url, { headers: { "if-none-match": etag } })).status).toBe(304);
    // Lists and weak forms match too (If-None-Match uses the weak comparison).
    expect((await get(url, { headers: { "if-none-match": `"nope", W/${etag}` } })).status).toBe(304);
    expect((await get(url, { headers: { "if-none-match": '"nope", "other"' } })).status).toBe(200);
  });

  it("serves the whole object when If-Range names a stale, weak or date validator", async () => {
    const etag = await etagOf();
    for (const ifRange of ['"stale"', `W/${etag}`, "Wed, 21 Oct 2015 07:28:00 GMT"]) {
      const res = await get(url, { headers: { range: "bytes=5-24", "if-range": ifRange } });
      expect(res.status, ifRange).toBe(200);
      expect(await bodyOf(res)).toEqual(stored());
    }
    const fresh = await get(url, { headers: { range: "bytes=5-24", "if-range": etag } });
    expect(fresh.status).toBe(206);
    expect(await bodyOf(fresh)).toEqual(stored().subarray(5, 25));
  });

  it("answers If-Match with a different tag 412, and a matching one normally", async () => {
    const etag = await etagOf();
    expect((await get(url, { headers: { "if-match": '"other"' } })).status).toBe(412);
    expect((await get(url, { headers: { "if-match": `W/${etag}` } })).status).toBe(412);
    expect((await get(url, { headers: { "if-match": `"other", ${etag}` } })).status).toBe(200);
    expect((await get(url, { headers: { "if-match": "*" } })).status).toBe(200);
  });

  it("ignores unknown range units and multiple ranges; refuses unsatisfiable ranges with 416", async () => {
    for (const range of ["items=0-5", "bytes=0-5,10-15", "bytes=abc"]) {
      const res = await get(url, { headers: { range } });
      expect(res.status, range).toBe(200);
      expect(await bodyOf(res)).toEqual(stored());
    }
    const size = stored().length;
    for (const range of ["bytes=500-10", `bytes=${size}-`, "bytes=-0"]) {
      const res = await get(url, { headers: { range } });
      expect(res.status, range).toBe(416);
      expect(res.headers.get("content-range")).toBe(`bytes */${size}`);
    }
  });

  it("answers a malformed percent-encoding with 400, never 500", async () => {
    expect((await get("https://edge.test/v1/%zz")).status).toBe(400);
    expect((await get("https://edge.test/v1/mainnet/%E0%A4%A")).status).toBe(400);
  });

  it("does not serve keys outside the sealed layout or other networks", async () => {
    expect((await get("https://edge.test/v1/mainnet/secret.txt")).status).toBe(404);
    expect((await get("https://edge.test/v1/regtest/r10/00000000.full.bin")).status).toBe(404);
  });
});

describe.skipIf(fixture === null)("GET /v1/<network>/head.json (not cached)", () => {
  beforeAll(seedBucket);
  const get = fetchWith(testEnv("none"));
  const url = "https://edge.test/v1/mainnet/head.json";

  it("applies the same rules without the cache", async () => {
    const whole = await get(url);
    expect(whole.status).toBe(200);
    const etag = whole.headers.get("etag")!;
    const text = await whole.text();
    expect((await get(url, { headers: { "if-match": '"other"' } })).status).toBe(412);
    expect((await get(url, { headers: { "if-none-match": etag } })).status).toBe(304);
    const part = await get(url, { headers: { range: "bytes=0-9" } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe(text.slice(0, 10));
    expect((await get(url, { headers: { range: "bytes=0-9", "if-range": '"stale"' } })).status).toBe(200);
    expect((await get(url, { headers: { range: "bytes=500-10" } })).status).toBe(416);
  });
});

describe("parseRange and answerFor", () => {
  it("reads the three byte-range forms and refuses unsatisfiable ones", () => {
    expect(parseRange("bytes=0-9", 100)).toEqual({ offset: 0, length: 10 });
    expect(parseRange("bytes=90-", 100)).toEqual({ offset: 90, length: 10 });
    expect(parseRange("bytes=-5", 100)).toEqual({ offset: 95, length: 5 });
    expect(parseRange("Bytes=0-200", 100)).toEqual({ offset: 0, length: 100 });
    expect(parseRange("bytes=100-", 100)).toBe("unsatisfiable");
    expect(parseRange("bytes=50-10", 100)).toBe("unsatisfiable");
    expect(parseRange("items=0-5", 100)).toBeNull();
    expect(parseRange(null, 100)).toBeNull();
  });

  it("checks If-Match before If-None-Match before Range (RFC 9110 §13.2.2)", () => {
    const h = (o: Record<string, string>) => new Headers(o);
    expect(answerFor(h({ "if-match": '"x"', "if-none-match": '"a"' }), '"a"', 10)).toEqual({ status: 412 });
    expect(answerFor(h({ "if-none-match": '"a"', range: "bytes=0-1" }), '"a"', 10)).toEqual({ status: 304 });
    expect(answerFor(h({ range: "bytes=0-1" }), '"a"', 10)).toEqual({ status: 206, offset: 0, length: 2 });
  });
});
