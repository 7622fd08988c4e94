import { describe, expect, it } from "vitest";
import { Lru, sharedLoad } from "./lru.ts";

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
