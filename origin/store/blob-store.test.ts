import { describe, expect, it } from "vitest";
import { bodyLength, bodySlice } from "./blob-store.ts";

describe("a body of parts", () => {
  const whole = Uint8Array.from({ length: 40 }, (_, i) => i);
  const parts = [whole.subarray(0, 3), whole.subarray(3, 3), whole.subarray(3, 20), whole.subarray(20)];

  it("has the length of its parts", () => {
    expect(bodyLength(parts)).toBe(40);
    expect(bodyLength(whole)).toBe(40);
    expect(bodyLength([])).toBe(0);
  });

  it("slices to the same bytes as the whole, across parts and inside one", () => {
    for (const [from, to] of [
      [0, 40],
      [0, 3],
      [2, 5],
      [3, 20],
      [5, 6],
      [19, 21],
      [10, 10],
      [39, 40],
    ] as const)
      expect(bodySlice(parts, from, to)).toEqual(whole.subarray(from, to));
  });

  it("slices inside one part as a view of it, not a copy", () => {
    const slice = bodySlice(parts, 4, 10);
    expect(slice.buffer).toBe(whole.buffer);
    expect(bodySlice(whole, 4, 10).buffer).toBe(whole.buffer);
  });
});
