import { describe, expect, it } from "vitest";
import { compactFrontierLength, slotsForSize } from "./compact-frontier.ts";

describe("compact frontier length", () => {
  it("counts exactly the slots slotsForSize names, for every u32 size and beyond", () => {
    const sizes = [
      0,
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      1023,
      1024,
      1025,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 31 + 1,
      2 ** 32 - 2,
    ];
    sizes.push(2 ** 32 - 1, 2 ** 32, 2 ** 33 + 5);
    for (let s = 1; s < 50_000_000; s = Math.floor(s * 1.37) + 1) sizes.push(s, s + 1);
    for (const size of sizes) {
      const { leaves, parentMask } = slotsForSize(size);
      expect(compactFrontierLength(size), `${size}`).toBe(4 + 32 * (leaves + parentMask.length));
    }
  });
});
