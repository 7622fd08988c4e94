import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { LightedgeError } from "../../proto/errors.ts";
import { createNodeGate } from "./node-gate.ts";

const deferred = () => {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

describe("node gate", () => {
  it("never runs more node calls at once than its cap", async () => {
    const gate = createNodeGate({ maxInFlight: 3, publicShare: 1, queueTimeoutMs: 5000, maxQueued: 100 });
    let running = 0;
    let peak = 0;
    const calls = Array.from({ length: 20 }, () =>
      gate.run("edge", "test", async () => {
        peak = Math.max(peak, ++running);
        await new Promise((r) => setTimeout(r, 2));
        running--;
      }),
    );
    await Promise.all(calls);
    expect(peak).toBe(3);
    expect(gate.inFlight()).toBe(0);
  });

  it("refuses a call as unavailable when the queue is full or the wait too long", async () => {
    const gate = createNodeGate({ maxInFlight: 1, publicShare: 1, queueTimeoutMs: 20, maxQueued: 1 });
    const hold = deferred();
    const first = gate.run("edge", "test", () => hold.promise);
    const queued = gate.run("edge", "test", async () => "late");
    const refused = gate.run("edge", "test", async () => "never");
    await expect(refused).rejects.toMatchObject({ kind: "unavailable" });
    await expect(queued).rejects.toBeInstanceOf(LightedgeError);
    hold.resolve();
    await first;
  });

  it("keeps a share of the node for edge traffic when public traffic saturates it", async () => {
    const gate = createNodeGate({ maxInFlight: 4, publicShare: 0.5, queueTimeoutMs: 20, maxQueued: 10 });
    const hold = deferred();
    const publicCalls = [
      gate.run("public", "t", () => hold.promise),
      gate.run("public", "t", () => hold.promise),
    ];
    await expect(gate.run("public", "t", async () => 1)).rejects.toMatchObject({ kind: "unavailable" });
    await expect(gate.run("edge", "t", async () => 2)).resolves.toBe(2);
    hold.resolve();
    await Promise.all(publicCalls);
  });

  it("gives a slot back when the caller's signal fires, failing with the signal's reason", async () => {
    const gate = createNodeGate({ maxInFlight: 1, publicShare: 1, queueTimeoutMs: 5000, maxQueued: 10 });
    const never = new Promise<never>(() => {});
    const holder = new AbortController();
    const held = gate.run("edge", "t", () => never, holder.signal);
    const waiter = new AbortController();
    const waiting = gate.run("edge", "t", async () => "x", waiter.signal);
    waiter.abort(new ConnectError("the operation timed out", Code.DeadlineExceeded));
    await expect(waiting).rejects.toMatchObject({ code: Code.DeadlineExceeded });
    holder.abort(new Error("client went away"));
    await expect(held).rejects.toMatchObject({ code: Code.Canceled });
    expect(gate.inFlight()).toBe(0);
    await expect(gate.run("edge", "t", async () => "free")).resolves.toBe("free");
  });

  it("frees a slot a stalled node holds past maxHoldMs, as Unavailable", async () => {
    const gate = createNodeGate({
      maxInFlight: 1,
      publicShare: 1,
      queueTimeoutMs: 5000,
      maxQueued: 10,
      maxHoldMs: 20,
    });
    await expect(gate.run("edge", "t", () => new Promise<never>(() => {}))).rejects.toMatchObject({
      kind: "unavailable",
    });
    expect(gate.inFlight()).toBe(0);
  });
});
