import { describe, expect, it } from "vitest";
import { holdRecords } from "./history/budget.ts";
import { afterResponse, heldUntilCancelled, inRequestScope } from "./request-scope.ts";

describe("work after the response (request-scope)", () => {
  it("starts afterResponse work only once the handler has returned, through the request's waitUntil", async () => {
    const handed: Promise<unknown>[] = [];
    const events: string[] = [];
    const answer = await inRequestScope({ waitUntil: (p) => handed.push(p) }, async () => {
      await afterResponse(async () => {
        events.push("put");
      });
      // What the answer still needs after the fill was handed over (GetBlock's frame read).
      await new Promise((resolve) => setTimeout(resolve, 5));
      events.push("answered");
      return 7;
    });
    expect(answer).toBe(7);
    expect(handed).toHaveLength(1);
    expect(events).toEqual(["answered"]);
    await Promise.all(handed);
    expect(events).toEqual(["answered", "put"]);
  });

  it("runs the work when the handler throws too", async () => {
    const handed: Promise<unknown>[] = [];
    let ran = false;
    await expect(
      inRequestScope({ waitUntil: (p) => handed.push(p) }, async () => {
        await afterResponse(async () => {
          ran = true;
        });
        throw new Error("GetBlock: boom");
      }),
    ).rejects.toThrow("boom");
    await Promise.all(handed);
    expect(ran).toBe(true);
  });

  it("outside a request, runs the work at once and waits for it (never cut off silently)", async () => {
    let ran = false;
    await afterResponse(async () => {
      ran = true;
    });
    expect(ran).toBe(true);
  });
});

describe("what a request holds in the isolate (heldUntilCancelled)", () => {
  const lifetime = { waitUntil: () => {} };

  it("gives it back once: at the release, or when the request's client goes away first", async () => {
    const left: string[] = [];
    const client = new AbortController();
    const [released, cancelled] = await inRequestScope(
      lifetime,
      () => [
        heldUntilCancelled(() => left.push("released")),
        heldUntilCancelled(() => left.push("cancelled")),
      ],
      client.signal,
    );
    released();
    released();
    expect(left).toEqual(["released"]);
    client.abort();
    expect(left).toEqual(["released", "cancelled"]);
    cancelled();
    expect(left).toEqual(["released", "cancelled"]);
  });

  it("gives back a history call's records when its request is cancelled before it releases them", async () => {
    const client = new AbortController();
    const limit = 10;
    await inRequestScope(lifetime, () => holdRecords(limit, limit), client.signal);
    expect(holdRecords(1, limit)).toBeUndefined();
    client.abort();
    const again = holdRecords(limit, limit);
    expect(again).toBeDefined();
    again?.();
  });

  it("outside a request, only the release gives it back", () => {
    let left = 0;
    const release = heldUntilCancelled(() => left++);
    release();
    release();
    expect(left).toBe(1);
  });
});
