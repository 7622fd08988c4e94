import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { request } from "node:http";
import type { AddressInfo, Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDirectoryStore } from "./directory-store.ts";
import { parseRange, serveDirectoryOverHttp } from "./http-server.ts";

let root: string;
let server: Server;
const bytes = new Uint8Array(1000).map((_, i) => i % 251);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "lightedge-dir-http-"));
  const store = createDirectoryStore(root);
  await store.put("regtest/ranges/a.bin", bytes, { immutable: true });
  await writeFile(join(root, "regtest", "ranges", ".tmp-abc"), "partial");
  server = await serveDirectoryOverHttp(root);
});
afterAll(async () => {
  server?.close();
  await rm(root, { recursive: true, force: true });
});

/** A raw GET: the path goes on the wire exactly as given (fetch would normalise it). */
function get(path: string, headers: Record<string, string> = {}, method = "GET") {
  const { port } = server.address() as AddressInfo;
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>(
    (resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path, method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      });
      req.on("error", reject);
      req.end();
    },
  );
}

describe("the directory store over HTTP", () => {
  it("serves whole objects and single byte ranges", async () => {
    const whole = await get("/regtest/ranges/a.bin");
    expect(whole.status).toBe(200);
    expect(Buffer.compare(whole.body, bytes)).toBe(0);
    const part = await get("/regtest/ranges/a.bin", { range: "bytes=10-19" });
    expect(part.status).toBe(206);
    expect(part.headers["content-range"]).toBe("bytes 10-19/1000");
    expect([...part.body]).toEqual([...bytes.subarray(10, 20)]);
    const tail = await get("/regtest/ranges/a.bin", { range: "bytes=990-5000" });
    expect(tail.headers["content-range"]).toBe("bytes 990-999/1000");
    expect(tail.body.length).toBe(10);
  });

  it("answers a backwards range or a start past the end with 416 and the size, and keeps serving", async () => {
    for (const range of ["bytes=500-10", "bytes=1000-", "bytes=5000-6000"]) {
      const r = await get("/regtest/ranges/a.bin", { range });
      expect(r.status).toBe(416);
      expect(r.headers["content-range"]).toBe("bytes */1000");
    }
    expect((await get("/regtest/ranges/a.bin", { range: "bytes=0-0" })).status).toBe(206);
  });

  it("ignores a range in another unit (RFC 9110 §14.2)", async () => {
    const r = await get("/regtest/ranges/a.bin", { range: "items=0-5" });
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(1000);
  });

  it("answers bad paths with 400 or 404, never a crash", async () => {
    expect((await get("/%zz")).status).toBe(400);
    expect((await get("/regtest/%E0%A4%A")).status).toBe(400);
    for (const path of [
      "/",
      "/regtest",
      "/regtest/ranges/.tmp-abc",
      "/regtest/../../etc/passwd",
      "/regtest/%2e%2e/%2e%2e/etc/passwd",
      "/regtest/ranges%2F..%2F..%2Fx",
      "/regtest/ranges/a.bin%00",
      "/nope",
    ]) {
      expect([400, 404]).toContain((await get(path)).status);
    }
    expect((await get("/regtest/ranges/a.bin", {}, "DELETE")).status).toBe(405);
    expect((await get("/regtest/ranges/a.bin")).status).toBe(200);
  });

  it("derives the ETag from the bytes: the same bytes rewritten keep it, other bytes change it", async () => {
    const before = (await get("/regtest/ranges/a.bin")).headers.etag;
    const path = join(root, "regtest", "ranges", "a.bin");
    await writeFile(path, bytes);
    await utimes(path, new Date(), new Date(Date.now() + 5000));
    expect((await get("/regtest/ranges/a.bin")).headers.etag).toBe(before);
    const store = createDirectoryStore(root);
    expect((await store.stat("regtest/ranges/a.bin"))?.etag).toBe(before);
    await writeFile(
      path,
      bytes.map((b) => b ^ 1),
    );
    const after = (await get("/regtest/ranges/a.bin")).headers.etag;
    expect(after).not.toBe(before);
    await writeFile(path, bytes);
  });
});

describe("parseRange", () => {
  it("follows RFC 9110 byte ranges", () => {
    expect(parseRange(undefined, 10)).toBe("whole");
    expect(parseRange("bytes=-3", 10)).toEqual({ start: 7, end: 9 });
    expect(parseRange("bytes=-30", 10)).toEqual({ start: 0, end: 9 });
    expect(parseRange("bytes=-0", 10)).toBe("unsatisfiable");
    expect(parseRange("bytes=2-", 10)).toEqual({ start: 2, end: 9 });
    expect(parseRange("bytes=0-1,3-4", 10)).toBe("whole");
    expect(parseRange("bytes=0-", 0)).toBe("unsatisfiable");
    expect(parseRange("bytes=99999999999999999999-", 10)).toBe("unsatisfiable");
  });
});
