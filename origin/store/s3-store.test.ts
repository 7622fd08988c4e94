import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MotoServer, startMoto } from "../../test/support/moto.ts";
import { IMMUTABLE_CACHE_CONTROL } from "./blob-store.ts";
import { describeBlobStoreContract } from "./blob-store-contract.ts";
import { verifyGetChecksum } from "./s3-helpers.ts";
import { createS3Store, type S3StoreConfig } from "./s3-store.ts";

let moto: MotoServer;
let buckets = 0;

beforeAll(async () => {
  moto = await startMoto();
});
afterAll(async () => moto?.stop());

async function freshConfig(extra: Partial<S3StoreConfig> = {}): Promise<S3StoreConfig> {
  const bucket = `lightedge-test-${++buckets}`;
  await moto.createBucket(bucket);
  const credentials = { accessKeyId: moto.accessKeyId, secretAccessKey: moto.secretAccessKey };
  return {
    bucket,
    endpoint: moto.endpoint,
    region: moto.region,
    forcePathStyle: true,
    credentials,
    ...extra,
  };
}

describeBlobStoreContract("the S3 store (moto_server)", async () => ({
  store: createS3Store(await freshConfig({ prefix: "deploy/" })),
  close: async () => {},
}));

describe("the S3 store against moto_server", () => {
  it("uploads a large object in parts and reads back every byte", async () => {
    const store = createS3Store(await freshConfig({ partBytes: 5 * 1024 * 1024 }));
    const big = new Uint8Array(11 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 0xff;
    await store.put("big.bin", big, { immutable: true });
    expect((await store.stat("big.bin"))?.size).toBe(big.length);
    // Buffer.equals: vitest's deep equality walks 11 M elements one by one.
    expect(Buffer.from((await store.get("big.bin"))!).equals(big)).toBe(true);
    expect(await store.get("big.bin", { offset: 5 * 1024 * 1024 - 3, length: 10 })).toEqual(
      big.subarray(5 * 1024 * 1024 - 3, 5 * 1024 * 1024 + 7),
    );
  });

  it("uploads a body of many parts in parts that cut across them, and reads back every byte", async () => {
    const store = createS3Store(await freshConfig({ partBytes: 5 * 1024 * 1024 }));
    const big = new Uint8Array(11 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i++) big[i] = (i * 13 + 5) & 0xff;
    // 70 KB pieces (a dev block's size): the 5 MB upload parts start and end inside them.
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < big.length; at += 70_000) pieces.push(big.subarray(at, at + 70_000));
    await store.put("parts.bin", pieces, { immutable: true });
    expect((await store.stat("parts.bin"))?.size).toBe(big.length);
    expect(Buffer.from((await store.get("parts.bin"))!).equals(big)).toBe(true);
    // The same bytes from a file, read a part at a time.
    const dir = await mkdtemp(join(tmpdir(), "lightedge-s3-file-"));
    try {
      await writeFile(join(dir, "big.raw"), big);
      await store.put("file.bin", { file: join(dir, "big.raw"), length: big.length }, { immutable: true });
      expect(Buffer.from((await store.get("file.bin"))!).equals(big)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("deletes more keys than one DeleteObjects call takes", async () => {
    const store = createS3Store(await freshConfig({ prefix: "p/" }));
    const keys = Array.from({ length: 1_003 }, (_, i) => `level/${String(i).padStart(4, "0")}.bin`);
    for (let i = 0; i < keys.length; i += 100)
      await Promise.all(
        keys.slice(i, i + 100).map((k) => store.put(k, new Uint8Array([1]), { immutable: true })),
      );
    await store.put("kept.bin", new Uint8Array([2]), { immutable: true });
    await store.delete(keys);
    expect(await store.list("")).toEqual(["kept.bin"]);
  }, 60_000);

  it("sets immutable Cache-Control on sealed objects and not on the head", async () => {
    const config = await freshConfig();
    const store = createS3Store(config);
    await store.put("sealed.bin", new Uint8Array([1]), { immutable: true });
    await store.put("head.json", new Uint8Array([2]), { contentType: "application/json" });
    const { S3Client, HeadObjectCommand } = await import("@aws-sdk/client-s3");
    const client = new S3Client({ ...config, endpoint: config.endpoint! });
    const sealed = await client.send(new HeadObjectCommand({ Bucket: config.bucket, Key: "sealed.bin" }));
    const head = await client.send(new HeadObjectCommand({ Bucket: config.bucket, Key: "head.json" }));
    expect(sealed.CacheControl).toBe(IMMUTABLE_CACHE_CONTROL);
    expect(head.CacheControl).not.toContain("immutable");
    expect(head.ContentType).toBe("application/json");
  });

  it("sends the SHA-256 of each upload, which the server stores and returns", async () => {
    const config = await freshConfig();
    const store = createS3Store(config);
    const bytes = new TextEncoder().encode("sealed bytes");
    await store.put("sum.bin", bytes, { immutable: true });
    const { S3Client, HeadObjectCommand } = await import("@aws-sdk/client-s3");
    const client = new S3Client({ ...config, endpoint: config.endpoint! });
    const head = await client.send(
      new HeadObjectCommand({ Bucket: config.bucket, Key: "sum.bin", ChecksumMode: "ENABLED" }),
    );
    expect(head.ChecksumSHA256).toBe(createHash("sha256").update(bytes).digest("base64"));
  });

  it("refuses a whole-object read whose bytes do not match the stored SHA-256", () => {
    const stored = createHash("sha256").update("original").digest("base64");
    expect(() => verifyGetChecksum("k", stored, new TextEncoder().encode("tampered"))).toThrow(
      expect.objectContaining({ kind: "corrupt" }),
    );
    expect(() => verifyGetChecksum("k", stored, new TextEncoder().encode("original"))).not.toThrow();
  });

  it("fails as unavailable, not as missing, when the signature is wrong", async () => {
    const config = await freshConfig();
    const store = createS3Store({
      ...config,
      credentials: { accessKeyId: moto.accessKeyId, secretAccessKey: "wrong" },
    });
    await expect(store.get("anything.bin")).rejects.toMatchObject({ kind: "unavailable" });
    await expect(store.put("anything.bin", new Uint8Array(1))).rejects.toMatchObject({ kind: "unavailable" });
  });
});

/**
 * A bucket endpoint that answers a GET's headers and its first bytes, then sends nothing (and takes
 * a PUT's body without ever answering), holding every connection open: what a stalled S3
 * front end looks like to the SDK. moto cannot stall, so this stands in for it.
 */
async function stallingEndpoint() {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.method ?? "");
    req.resume();
    if (req.method === "GET") {
      res.writeHead(200, { "content-length": "100", etag: '"e"' });
      res.write(Buffer.alloc(10));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe("the S3 store against a bucket that stalls", () => {
  it("fails a read stalled mid-body and a write never answered Unavailable after the idle bound, retried, not hung", async () => {
    const stalling = await stallingEndpoint();
    try {
      const store = createS3Store({
        bucket: "b",
        endpoint: stalling.endpoint,
        region: "us-east-1",
        forcePathStyle: true,
        credentials: { accessKeyId: "a", secretAccessKey: "s" },
        idleTimeoutMs: 300,
      });
      const started = Date.now();
      await expect(store.get("stalled.bin")).rejects.toMatchObject({
        kind: "unavailable",
        message: expect.stringMatching(/^S3 get stalled\.bin: /),
      });
      await expect(store.put("stalled.bin", new Uint8Array(16))).rejects.toMatchObject({
        kind: "unavailable",
        message: expect.stringMatching(/^S3 put stalled\.bin: /),
      });
      // Each timed-out request is retried by the SDK (maxAttempts 3), then the call fails.
      expect(stalling.requests.filter((m) => m === "PUT").length).toBeGreaterThanOrEqual(1);
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      stalling.close();
    }
  });
});
