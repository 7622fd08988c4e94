import { beforeAll, describe, expect, it } from "vitest";
import { displayHex } from "../../proto/bytes.ts";
import { clientsFor } from "../testing/clients.ts";
import { b64, type EdgeFixture, fetchWith, fixture, seedBucket, testEnv } from "../testing/fixture.ts";

const f = fixture as EdgeFixture;

describe.skipIf(fixture === null)("GetLatestBlock and GetLightdInfo", () => {
  beforeAll(seedBucket);

  describe.each(clientsFor(testEnv("good")))("over %s", (_name, client) => {
    it("reports the origin's tip and the head's node facts", async () => {
      const last = f.seed.blocks.mainnet![f.seed.blocks.mainnet!.length - 1]!;
      const latest = await client.getLatestBlock({});
      expect(Number(latest.height)).toBe(last.height);
      expect(latest.hash).toEqual(b64(last.hash));
      const info = await client.getLightdInfo({});
      expect(info).toMatchObject({
        chainName: "main",
        vendor: "lightedge",
        lightwalletProtocolVersion: "v0.5.0",
      });
      expect(info.saplingActivationHeight).toBe(419200n);
    });
  });

  it("keeps answering from the head object with the origin down", async () => {
    const [, client] = clientsFor(testEnv("down"))[1]!;
    const latest = await client.getLatestBlock({});
    const sealed = f.seed.blocks.mainnet!.find((b) => b.height === f.seed.tips.mainnet)!;
    expect(Number(latest.height)).toBe(sealed.height);
    expect(displayHex(latest.hash)).toBe(displayHex(b64(sealed.hash)));
    expect((await client.getLightdInfo({})).chainName).toBe("main");
  });

  it("answers a Connect GET of GetLightdInfo, cacheable only as long as the head", async () => {
    const get = fetchWith(testEnv("good"));
    const base = "https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer";
    const res = await get(`${base}/GetLightdInfo?connect=v1&encoding=json&message=%7B%7D`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=1");
    expect(((await res.json()) as { chainName: string }).chainName).toBe("main");
    const send = await get(`${base}/SendTransaction?connect=v1&encoding=json&message=%7B%7D`);
    expect(send.status).toBe(400);
    expect(((await send.json()) as { message: string }).message).toMatch(/^SendTransaction: /);
  });

  it("refuses a network this deployment does not serve", async () => {
    const res = await fetchWith(testEnv("good"))(
      "https://edge.test/regtest/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetLightdInfo",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      },
    );
    expect(res.status).toBe(404);
  });
});
