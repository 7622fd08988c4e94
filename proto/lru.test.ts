import { describe, expect, it } from "vitest";
import { LoadCache, Lru, sharedLoad } from "./lru.ts";

describe("Lru", () => {
  it("evicts the least recently used entry, a hit counting as a use", () => {
    const lru = new Lru<string, number>({ maxEntries: 2 });
    lru.set("a", 1).set("b", 2);
    expect(lru.get("a")).toBe(1);
    lru.set("c", 3);
    expect(lru.get("b")).toBeUndefined();
    expect(lru.values()).toEqual([3, 1]);
    expect(lru.peek("a")).toBe(1);
    lru.set("d", 4);
    expect(lru.get("a")).toBeUndefined();
  });

  it("expires entries after ttlMs", () => {
    let now = 0;
    const lru = new Lru<string, number>({ maxEntries: 4, ttlMs: 10, now: () => now });
    lru.set("a", 1);
    now = 9;
    expect(lru.get("a")).toBe(1);
    now = 10;
    expect(lru.get("a")).toBeUndefined();
    expect(lru.size).toBe(0);
  });

  it("deletes by key predicate and refuses an empty capacity", () => {
    const lru = new Lru<number, string>({ maxEntries: 8 });
    for (const k of [1, 2, 3, 4]) lru.set(k, String(k));
    lru.deleteWhere((k) => k >= 3);
    expect(lru.values()).toEqual(["2", "1"]);
    expect(() => new Lru({ maxEntries: 0 })).toThrow(RangeError);
  });
});

describe("sharedLoad", () => {
  it("shares one load, forgets failures and values `keep` refuses", async () => {
    const lru = new Lru<string, Promise<number | undefined>>({ maxEntries: 4 });
    let loads = 0;
    const load =
      (value: number | undefined, fail = false) =>
      () => {
        loads++;
        return fail ? Promise.reject(new Error("no")) : Promise.resolve(value);
      };
    const keep = (v: number | undefined) => v !== undefined;
    const [a, b] = [sharedLoad(lru, "k", load(1), keep), sharedLoad(lru, "k", load(2), keep)];
    expect(await a).toBe(1);
    expect(await b).toBe(1);
    expect(loads).toBe(1);
    await expect(sharedLoad(lru, "f", load(0, true))).rejects.toThrow("no");
    expect(lru.peek("f")).toBeUndefined();
    await sharedLoad(lru, "absent", load(undefined), keep);
    expect(lru.peek("absent")).toBeUndefined();
    expect(await sharedLoad(lru, "k", load(3), keep)).toBe(1);
  });
});

describe("LoadCache", () => {
  /** Loads the test settles by hand, counted. */
  const manual = () => {
    const pending: ((v: number | undefined) => void)[] = [];
    const load = () => new Promise<number | undefined>((resolve) => pending.push(resolve));
    return { pending, load };
  };
  const keep = (v: number | undefined) => v !== undefined;

  it("in-flight: concurrent misses share the first load; refused values and failures are not kept", async () => {
    const cache = new LoadCache<string, number | undefined>({ maxEntries: 4, sharing: "in-flight" });
    const { pending, load } = manual();
    const [a, b] = [cache.load("k", load, keep), cache.load("k", load, keep)];
    expect(pending).toHaveLength(1);
    pending[0]!(1);
    expect([await a, await b]).toEqual([1, 1]);
    expect(await cache.load("k", load, keep)).toBe(1);
    expect(pending).toHaveLength(1);
    const absent = cache.load("absent", load, keep);
    pending[1]!(undefined);
    await absent;
    expect(cache.peek("absent")).toBeUndefined();
    await expect(cache.load("f", () => Promise.reject(new Error("no")))).rejects.toThrow("no");
    expect(cache.peek("f")).toBeUndefined();
  });

  it("settled: each concurrent miss loads for itself (Workers: no promise crosses requests); values are shared once settled", async () => {
    const cache = new LoadCache<string, number | undefined>({ maxEntries: 4, sharing: "settled" });
    const { pending, load } = manual();
    const [a, b] = [cache.load("k", load), cache.load("k", load)];
    expect(pending).toHaveLength(2);
    pending[0]!(1);
    pending[1]!(1);
    expect([await a, await b]).toEqual([1, 1]);
    expect(await cache.load("k", load)).toBe(1);
    expect(pending).toHaveLength(2);
    expect(cache.values()).toEqual([1]);
  });

  it("a load started before deleteWhere does not store its stale value", async () => {
    for (const sharing of ["in-flight", "settled"] as const) {
      const cache = new LoadCache<number, number | undefined>({ maxEntries: 4, sharing });
      const { pending, load } = manual();
      const old = cache.load(5, load);
      cache.deleteWhere((k) => k >= 3);
      const again = cache.load(5, load);
      expect(pending, sharing).toHaveLength(2);
      pending[0]!(1);
      await old;
      expect(cache.peek(5), sharing).toBeUndefined();
      pending[1]!(2);
      expect(await again).toBe(2);
      expect(cache.peek(5), sharing).toBe(2);
    }
  });
});
