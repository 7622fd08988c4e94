import { describe, expect, it } from "vitest";
import { afterResponse, inRequestScope } from "./request-scope.ts";

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
