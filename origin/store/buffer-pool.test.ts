import { describe, expect, it } from "vitest";
import { BufferPool } from "./buffer-pool.ts";

describe("the read buffer pool", () => {
  it("lends a buffer of the asked length and lends the same memory again only after it comes back", () => {
    const pool = new BufferPool({ minBytes: 1024 });
    const a = pool.take(3000);
    expect(a.length).toBe(3000);
    expect(a.buffer.byteLength).toBe(3072); // 2048 · 1.5: the size class just above
    const b = pool.take(3000);
    expect(b.buffer).not.toBe(a.buffer);
    pool.give(a.buffer);
    expect(pool.freeBytes).toBe(3072);
    const c = pool.take(2600);
    expect(c.buffer).toBe(a.buffer);
    expect(c.length).toBe(2600);
    // Another class is other memory.
    expect(pool.take(2000).buffer.byteLength).toBe(2048);
    expect(pool.freeBytes).toBe(0);
  });

  it("takes back only what it lent, once", () => {
    const pool = new BufferPool({ minBytes: 1024 });
    pool.give(new ArrayBuffer(4096));
    expect(pool.freeBytes).toBe(0);
    const a = pool.take(4096);
    expect(pool.lent(a.buffer)).toBe(true);
    pool.give(a.buffer);
    expect(pool.lent(a.buffer)).toBe(false);
    pool.give(a.buffer);
    expect(pool.freeBytes).toBe(4096);
    // Lent twice would be one buffer behind two reads: a second take gets other memory.
    const b = pool.take(4096);
    const c = pool.take(4096);
    expect(b.buffer).not.toBe(c.buffer);
  });

  it("allocates small and oversized reads as usual and keeps at most maxFreeBytes", () => {
    const pool = new BufferPool({ minBytes: 64 * 1024, maxFreeBytes: 256 * 1024 });
    const small = pool.take(100);
    expect(small.buffer.byteLength).toBe(64 * 1024); // pooled from the minimum size up
    const none = pool.take(0);
    expect(pool.lent(none.buffer)).toBe(false);
    const huge = pool.take(2 ** 26 + 1);
    expect(pool.lent(huge.buffer)).toBe(false);
    const lent = [pool.take(128 * 1024), pool.take(128 * 1024), pool.take(128 * 1024)];
    for (const b of lent) pool.give(b.buffer);
    expect(pool.freeBytes).toBe(256 * 1024);
  });
});
