import { describe, expect, it } from "vitest";
import { encodeFrame, FLAG_GRPC_WEB_TRAILER } from "../../proto/frame.ts";
import { createFrameCounter, trailerOk } from "./frame-counter.ts";
import { percentile, seededRandom } from "./stats.ts";

function body(): Uint8Array {
  const parts = [
    encodeFrame(new Uint8Array(0)),
    encodeFrame(new Uint8Array(300).fill(7)),
    encodeFrame(new Uint8Array(1)),
    encodeFrame(new TextEncoder().encode("grpc-status:0\r\n"), FLAG_GRPC_WEB_TRAILER),
  ];
  return Buffer.concat(parts);
}

describe("the load generator's frame counter", () => {
  it.each([1, 2, 3, 4, 5, 7, 1000])(
    "counts data frames and reads the trailer when fed %i-byte chunks",
    (size) => {
      const bytes = body();
      const counter = createFrameCounter();
      for (let i = 0; i < bytes.length; i += size) counter.push(bytes.subarray(i, i + size));
      expect(counter.frames).toBe(3);
      expect(counter.trailer).toBe("grpc-status:0\r\n");
      expect(trailerOk(counter.trailer, undefined)).toBe(true);
    },
  );

  it("treats a non-zero grpc-status or a Connect error as a failure", () => {
    expect(trailerOk("grpc-status:14\r\n", undefined)).toBe(false);
    expect(trailerOk('{"error":{"code":"unavailable"}}', undefined)).toBe(false);
    expect(trailerOk("{}", undefined)).toBe(true);
    expect(trailerOk(null, "0")).toBe(true);
    expect(trailerOk(null, undefined)).toBe(false);
  });
});

describe("bench statistics", () => {
  it("takes nearest-rank percentiles", () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 99)).toBe(99);
    expect(percentile([], 50)).toBeNaN();
  });

  it("repeats seeded random starts across runs", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
  });
});
