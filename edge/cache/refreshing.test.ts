import { describe, expect, it } from "vitest";
import { createRefreshingCache } from "./refreshing.ts";

/** A read whose answers the test settles by hand, counting calls. */
function manualRead() {
  const pending: { resolve(v: number): void; reject(e: unknown): void }[] = [];
  const read = (_key: string) =>
    new Promise<number>((resolve, reject) => {
      pending.push({ resolve, reject });
    });
  return { read, pending };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("the refreshing cache", () => {
  it("shares settled values only: concurrent cold reads each read; then the settled value inside the TTL and while one refresh runs", async () => {
    let t = 0;
    const { read, pending } = manualRead();
    const cache = createRefreshingCache(read, 1000, () => t);
    const a = cache.get("k");
    const b = cache.get("k");
    // A read in flight belongs to its request (workerd): the second caller does not await it.
    expect(pending).toHaveLength(2);
    pending[0]!.resolve(1);
    pending[1]!.resolve(1);
    expect([await a, await b]).toEqual([1, 1]);
    expect(await cache.get("k")).toBe(1);
    expect(pending).toHaveLength(2);
    t = 1500; // past the TTL, within 2 × TTL: the old value, one refresh started
    expect(await cache.get("k")).toBe(1);
    expect(await cache.get("k")).toBe(1);
    expect(pending).toHaveLength(3);
    pending[2]!.resolve(2);
    await tick();
    expect(await cache.get("k")).toBe(2);
    expect(pending).toHaveLength(3);
  });

  it("gives up on a refresh that never settles (its request ended) after a TTL, and starts another", async () => {
    let t = 0;
    const { read, pending } = manualRead();
    const cache = createRefreshingCache(read, 1000, () => t);
    const first = cache.get("k");
    pending[0]!.resolve(1);
    await first;
    t = 1100;
    expect(await cache.get("k")).toBe(1); // refresh 1 starts and is never settled
    t = 1900;
    expect(await cache.get("k")).toBe(1);
    expect(pending).toHaveLength(2);
    expect(cache.peek("k")).toBe(1);
    t = 2500; // too old: this caller reads for itself
    const fresh = cache.get("k");
    expect(pending).toHaveLength(3);
    pending[2]!.resolve(3);
    expect(await fresh).toBe(3);
  });

  it("waits for a fresh read once the value is older than 2 × TTL, and never caches a failure", async () => {
    let t = 0;
    const { read, pending } = manualRead();
    const cache = createRefreshingCache(read, 1000, () => t);
    const first = cache.get("k");
    pending[0]!.reject(new Error("down"));
    await expect(first).rejects.toThrow("down");
    const second = cache.get("k");
    expect(pending).toHaveLength(2);
    pending[1]!.resolve(5);
    expect(await second).toBe(5);
    t = 2500;
    const third = cache.get("k");
    expect(pending).toHaveLength(3);
    pending[2]!.resolve(6);
    expect(await third).toBe(6);
  });

  it("keeps the settled value when a background refresh fails, and tries again on the next call", async () => {
    let t = 0;
    const { read, pending } = manualRead();
    const cache = createRefreshingCache(read, 1000, () => t);
    const first = cache.get("k");
    pending[0]!.resolve(1);
    await first;
    t = 1200;
    expect(await cache.get("k")).toBe(1);
    pending[1]!.reject(new Error("blip"));
    await tick();
    expect(await cache.get("k")).toBe(1);
    expect(pending).toHaveLength(3);
  });

  it("with a TTL of 0 reads every time", async () => {
    const { read, pending } = manualRead();
    const cache = createRefreshingCache(read, 0, () => 0);
    void cache.get("k");
    void cache.get("k");
    expect(pending).toHaveLength(2);
  });
});
