import { mkdtemp, readdir, rm, stat, truncate, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeRangeMeta, encodeSealedRange, rangeKeys, verifySection } from "../../proto/range/index.ts";
import { syntheticRange } from "../../proto/range/testing.ts";
import { describeBlobStoreContract } from "./blob-store-contract.ts";
import { createDirectoryStore, TEMP_MAX_AGE_MS } from "./directory-store.ts";

/** Runs `test` on a fresh temp directory, removed afterwards whatever happens. */
async function inTempRoot(test: (root: string) => Promise<void>): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "lightedge-dir-store-"));
  try {
    await test(root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

describeBlobStoreContract("the directory store", async () => {
  const root = await mkdtemp(join(tmpdir(), "lightedge-dir-store-"));
  return { store: createDirectoryStore(root), close: () => rm(root, { recursive: true, force: true }) };
});

describe("the directory store on disk", () => {
  it("leaves no temp files behind and ignores stray ones when listing", async () => {
    await inTempRoot(async (root) => {
      const store = createDirectoryStore(root);
      await store.put("a/b.bin", new Uint8Array([1, 2, 3]));
      await writeFile(join(root, "a", ".tmp-deadbeef"), "partial");
      expect(await store.list("a/")).toEqual(["a/b.bin"]);
      expect((await readdir(join(root, "a"))).sort()).toEqual([".tmp-deadbeef", "b.bin"]);
    });
  });

  it("writes a body of thousands of parts (more than one writev takes) in order", async () => {
    await inTempRoot(async (root) => {
      const store = createDirectoryStore(root);
      // A raw-block object's shape: 1,000 frames of a 5-byte header and a block each.
      const parts = Array.from({ length: 2001 }, (_, k) =>
        Uint8Array.from({ length: k % 7 }, (_, i) => k + i),
      );
      await store.put("r/parts.bin", parts, { immutable: true });
      expect(Buffer.from((await store.get("r/parts.bin"))!).equals(Buffer.concat(parts))).toBe(true);
    });
  });

  it("refuses a file body shorter than its length, and leaves nothing behind", async () => {
    await inTempRoot(async (root) => {
      const store = createDirectoryStore(root);
      await writeFile(join(root, "short.raw"), "abc");
      await expect(store.put("r/x.bin", { file: join(root, "short.raw"), length: 4 })).rejects.toThrow(
        /3 of 4 bytes/,
      );
      expect(await readdir(join(root, "r"))).toEqual([]);
    });
  });

  it("links a frozen file body of exactly its length, and copies any other file body", async () => {
    await inTempRoot(async (root) => {
      const store = createDirectoryStore(root);
      const source = join(root, "spool.raw");
      await writeFile(source, "raw blocks");
      await store.put("r/linked.bin", { file: source, length: 10, frozen: true }, { immutable: true });
      await store.put("r/copied.bin", { file: source, length: 10 }, { immutable: true });
      await store.put("r/cut.bin", { file: source, length: 3, frozen: true }, { immutable: true });
      const inode = (key: string) => stat(join(root, ...key.split("/"))).then((s) => s.ino);
      // The frozen body's bytes are on disk once: the object is the same inode.
      expect(await inode("r/linked.bin")).toBe((await stat(source)).ino);
      expect(await inode("r/copied.bin")).not.toBe((await stat(source)).ino);
      // A frozen file longer than its body is copied and cut: the source keeps its bytes.
      expect(await inode("r/cut.bin")).not.toBe((await stat(source)).ino);
      expect(Buffer.from((await store.get("r/cut.bin"))!).toString()).toBe("raw");
      // The spool unlinks its name after sealing: the object stays whole.
      await rm(source);
      expect(Buffer.from((await store.get("r/linked.bin"))!).toString()).toBe("raw blocks");
      expect(Buffer.from((await store.get("r/copied.bin"))!).toString()).toBe("raw blocks");
      expect(await readdir(join(root, "r"))).toEqual(["copied.bin", "cut.bin", "linked.bin"]);
    });
  });

  it("removes a folder with its last object, and keeps one that holds anything else", async () => {
    await inTempRoot(async (root) => {
      const store = createDirectoryStore(root);
      await store.put("i/txid/00-03/0000.bin", new Uint8Array([1]));
      await store.put("i/txid/00-03/0001.bin", new Uint8Array([1]));
      await store.put("i/txid/00-06/0000.bin", new Uint8Array([1]));
      await writeFile(join(root, "i", "txid", "00-06", ".tmp-deadbeef"), "a writer's");
      await store.delete(["i/txid/00-03/0000.bin", "i/txid/00-03/0001.bin", "i/txid/00-06/0000.bin"]);
      expect(await readdir(join(root, "i", "txid"))).toEqual(["00-06"]);
      expect(await readdir(join(root, "i", "txid", "00-06"))).toEqual([".tmp-deadbeef"]);
      await expect(store.delete(["../outside.bin"])).rejects.toThrow();
    });
  });

  it("refuses keys that would escape its root", async () => {
    const store = createDirectoryStore(join(tmpdir(), "lightedge-never-created"));
    for (const key of ["../x", "a/../../x", "/etc/passwd", "a//b", "a/.tmp-x", ""]) {
      await expect(store.put(key, new Uint8Array(1)), key).rejects.toMatchObject({ kind: "bad-request" });
    }
  });
});

describe("damaged range objects on disk", () => {
  it("are reported as corrupt (truncated data) or absent (missing range), never as blocks", async () => {
    await inTempRoot(async (root) => {
      const store = createDirectoryStore(root);
      const encoded = encodeSealedRange(syntheticRange({ rangeSize: 10, index: 0 }));
      const keys = rangeKeys("testnet", 10, 0);
      await store.put(keys.meta, encoded.meta, { immutable: true });
      await store.put(keys.data.shielded, encoded.data.shielded, { immutable: true });
      await truncate(join(root, ...keys.data.shielded.split("/")), encoded.data.shielded.length - 3);
      const meta = decodeRangeMeta((await store.get(keys.meta))!);
      const truncated = (await store.get(keys.data.shielded))!;
      expect(() => verifySection(meta, "shielded", truncated)).toThrow(
        expect.objectContaining({ kind: "corrupt" }),
      );
      expect((await store.stat(keys.data.shielded))?.size).not.toBe(meta.sections.shielded.length);
      expect(await store.get(rangeKeys("testnet", 10, 1).meta)).toBeNull();
      await truncate(join(root, ...keys.meta.split("/")), 100);
      const cutMeta = (await store.get(keys.meta))!;
      expect(() => decodeRangeMeta(cutMeta)).toThrow(expect.objectContaining({ kind: "corrupt" }));
    });
  });
});

describe("the directory store's leftovers", () => {
  it("sweeps temp files a killed writer left behind when it opens, and only old ones", async () => {
    await inTempRoot(async (root) => {
      await createDirectoryStore(root).put("regtest/x/y.bin", new Uint8Array([1]));
      // What a writer killed between open and rename leaves: a partial temp file, hours old.
      const old = join(root, "regtest", "x", ".tmp-0123456789ab");
      await writeFile(old, "partial");
      const past = new Date(Date.now() - 2 * TEMP_MAX_AGE_MS);
      await utimes(old, past, past);
      const fresh = join(root, "regtest", ".tmp-fedcba987654");
      await writeFile(fresh, "a write in progress");
      const store = createDirectoryStore(root);
      expect(await store.swept).toBe(1);
      expect((await readdir(join(root, "regtest", "x"))).sort()).toEqual(["y.bin"]);
      expect((await readdir(join(root, "regtest"))).sort()).toEqual([".tmp-fedcba987654", "x"]);
    });
  });
});
