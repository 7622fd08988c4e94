import { env } from "cloudflare:test";
import { fromBinary } from "@bufbuild/protobuf";
import { beforeAll, describe, expect, it } from "vitest";
import { TreeStateSchema } from "../../proto/index.ts";
import { decodeHead, headKey } from "../../proto/range/index.ts";
import {
  decodeTreeStateRange,
  encodeTreeStateRange,
  type TreeStateBlock,
  treeStateAt,
  treeStateKey,
} from "../../proto/treestate/index.ts";
import type { Env } from "../env.ts";
import { clientsFor } from "../testing/clients.ts";
import { b64, type EdgeFixture, fetchWith, fixture, seedBucket, testEnv } from "../testing/fixture.ts";

const f = fixture as EdgeFixture;
const node = (seed: number) => Uint8Array.from({ length: 32 }, (_, i) => (seed * 37 + i * 11) & 0x3f);
const base = "https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer";

// The binary protocols take the fast path (rpc/fast-unary.ts), Connect JSON the router
// (rpc/tree-states.ts): the answers must be the same messages, cached or not.
describe.skipIf(fixture === null)("GetTreeState from a stored tree-state object", () => {
  let tip = 0;
  let whole: ReturnType<typeof decodeTreeStateRange>;
  beforeAll(async () => {
    await seedBucket();
    const head = decodeHead(b64(f.seed.objects[headKey("mainnet")]!));
    tip = head.tip!.height;
    const index = Math.floor(tip / head.rangeSize);
    const first = index * head.rangeSize;
    const blocks: TreeStateBlock[] = Array.from({ length: head.rangeSize }, (_, i) => ({
      height: first + i,
      wireHash: node(1000 + i),
      time: 1_700_000_000 + i,
      sapling: { left: node(i), right: i % 2 ? node(i + 1) : undefined, parents: [node(7), undefined] },
      orchard: { parents: [node(3)] },
    }));
    const bytes = encodeTreeStateRange({ network: "main", blocks });
    whole = decodeTreeStateRange(bytes);
    await (env as unknown as Env).BLOCKS!.put(treeStateKey("mainnet", head.rangeSize, index), bytes);
  });

  describe.each(clientsFor(testEnv("good")))("over %s", (_name, client) => {
    it("answers a sealed height as the stored object says, twice (the second from the isolate)", async () => {
      const expected = treeStateAt(whole, tip);
      for (let i = 0; i < 2; i++) {
        const got = await client.getTreeState({ height: BigInt(tip) });
        expect(Number(got.height)).toBe(tip);
        expect(got.saplingTree).toBe(expected.saplingTree);
        expect(got.orchardTree).toBe(expected.orchardTree);
        expect(got.hash).toBe(expected.hash);
      }
    });
  });

  it("answers a Connect GET (proto) from the fast path, cacheable as long as the head", async () => {
    const message = btoa(String.fromCharCode(0x08, ...varint(tip)))
      .replace(/\+/g, "-")
      .replace(/\//g, "_");
    const res = await fetchWith(testEnv("good"))(
      `${base}/GetTreeState?connect=v1&encoding=proto&base64=1&message=${message.replace(/=+$/, "")}`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/proto");
    expect(res.headers.get("cache-control")).toBe("public, max-age=1");
    const got = fromBinary(TreeStateSchema, new Uint8Array(await res.arrayBuffer()));
    expect(got.saplingTree).toBe(treeStateAt(whole, tip).saplingTree);
  });

  it("refuses a truncated request message as InvalidArgument", async () => {
    const res = await fetchWith(testEnv("good"))(`${base}/GetTreeState`, {
      method: "POST",
      headers: { "content-type": "application/proto" },
      body: new Uint8Array([0x08]),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/^GetTreeState: /);
  });
});

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}
