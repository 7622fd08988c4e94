import { describe, expect, it } from "vitest";
import { withinMs } from "./deadline.ts";

const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe("withinMs (a wait bounded by a timer)", () => {
  it("gives the work's value, or its error, when it settles first", async () => {
    expect(await withinMs(after(5, "done"), 1_000, () => "late")).toBe("done");
    await expect(withinMs(Promise.reject(new Error("failed")), 1_000, () => "late")).rejects.toThrow(
      "failed",
    );
  });

  it("gives what `late` returns, or throws, once the time passes first", async () => {
    const never = new Promise<string>(() => {});
    expect(await withinMs(never, 10, () => "late")).toBe("late");
    await expect(
      withinMs(never, 10, () => {
        throw new Error("stalled");
      }),
    ).rejects.toThrow("stalled");
  });
});
