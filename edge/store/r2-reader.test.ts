import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createObjectReader } from "./create-object-reader.ts";
import { createR2Reader } from "./r2-reader.ts";
import { describeObjectReaderContract } from "./reader-contract.ts";

const bucket = (env as unknown as { BLOCKS: R2Bucket }).BLOCKS;
const bare = { NETWORKS: "mainnet", VENDOR: "", VERSION: "", DONATION_ADDRESS: "" };

describeObjectReaderContract("the R2 binding reader", async () => {
  const prefix = `r2-contract-${crypto.randomUUID()}/`;
  return {
    reader: createR2Reader(bucket, prefix),
    put: async (key, bytes) => void (await bucket.put(prefix + key, bytes)),
  };
});

describe("createObjectReader", () => {
  it("prefers the BLOCKS binding and reads under STORE_PREFIX", async () => {
    await bucket.put("pref-test/only-here.bin", new Uint8Array([9, 8, 7]));
    const reader = createObjectReader({ ...bare, BLOCKS: bucket, STORE_PREFIX: "/pref-test/" });
    expect((await reader.head("only-here.bin"))?.size).toBe(3);
  });

  it("refuses to start with no store configured", () => {
    expect(() => createObjectReader(bare)).toThrow(/no object store configured/);
  });
});

describe("the R2 binding reader's calls", () => {
  it("reads a range with one R2 get and no head, its size still the whole object's", async () => {
    const key = `one-call-${crypto.randomUUID()}.bin`;
    await bucket.put(key, new Uint8Array(100));
    const calls: string[] = [];
    // The real binding, with each call it receives recorded.
    const counted = new Proxy(bucket, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(String(prop));
          return value.apply(target, args);
        };
      },
    });
    const got = await createR2Reader(counted).get(key, { offset: 10, length: 20 });
    expect(got?.size).toBe(100);
    expect(got?.range).toEqual({ offset: 10, length: 20 });
    expect((await new Response(got!.body).arrayBuffer()).byteLength).toBe(20);
    expect(calls).toEqual(["get"]);
  });
});
