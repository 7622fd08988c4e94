import { describe, expect, it } from "vitest";
import { createGate } from "./gate.ts";

/** Which of the given entries have been admitted so far. */
async function admitted(entries: Record<string, Promise<void>>): Promise<string[]> {
  const seen: string[] = [];
  for (const [name, entry] of Object.entries(entries)) void entry.then(() => seen.push(name)).catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 0));
  return seen.sort();
}

describe("createGate", () => {
  it("admits up to its capacity at once, the rest in arrival order as capacity is given back", async () => {
    const gate = createGate(2);
    const entries = { a: gate.enter(), b: gate.enter(), c: gate.enter(), d: gate.enter() };
    expect(await admitted(entries)).toEqual(["a", "b"]);
    expect(gate.waiting).toBe(2);
    gate.leave();
    expect(await admitted(entries)).toEqual(["a", "b", "c"]);
    gate.leave();
    expect(await admitted(entries)).toEqual(["a", "b", "c", "d"]);
    expect(gate.held).toBe(2);
  });

  it("counts weights, and keeps a large waiter's place against small ones that would fit", async () => {
    const gate = createGate(10);
    const first = gate.enter(undefined, 6);
    const large = gate.enter(undefined, 8);
    const small = gate.enter(undefined, 1);
    expect(await admitted({ first, large, small })).toEqual(["first"]);
    gate.leave(6);
    expect(await admitted({ first, large, small })).toEqual(["first", "large", "small"]);
    expect(gate.held).toBe(9);
  });

  it("admits a weight above its capacity alone, once nothing else is held", async () => {
    const gate = createGate(10);
    const small = gate.enter(undefined, 3);
    const huge = gate.enter(undefined, 25);
    expect(await admitted({ small, huge })).toEqual(["small"]);
    gate.leave(3);
    expect(await admitted({ small, huge })).toEqual(["huge", "small"]);
    expect(gate.held).toBe(25);
    const next = gate.enter(undefined, 1);
    expect(await admitted({ next })).toEqual([]);
    gate.leave(25);
    expect(await admitted({ next })).toEqual(["next"]);
  });

  it("drops a waiter whose signal fires, rejecting with its reason, and lets those behind it in", async () => {
    const gate = createGate(10);
    await gate.enter(undefined, 5);
    const abort = new AbortController();
    const blocked = gate.enter(abort.signal, 8);
    const behind = gate.enter(undefined, 4);
    expect(await admitted({ blocked, behind })).toEqual([]);
    abort.abort(new Error("deadline"));
    await expect(blocked).rejects.toThrow("deadline");
    expect(await admitted({ behind })).toEqual(["behind"]);
    expect(gate.held).toBe(9);
    expect(gate.waiting).toBe(0);
    await expect(gate.enter(AbortSignal.abort(new Error("already")))).rejects.toThrow("already");
    expect(gate.held).toBe(9);
  });
});
