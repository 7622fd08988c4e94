import { describe, expect, it } from "vitest";
import { parseRpcBody } from "./rpc-body.ts";

const bytes = (n: number, seed: number) =>
  Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));

describe("JSON-RPC body parsing with big hex results", () => {
  it("decodes big hex results to bytes and leaves every other field as JSON.parse gives it", () => {
    const a = bytes(5000, 1);
    const b = bytes(70_000, 2);
    const meta = { hash: "ab".repeat(32), tx: ["cd".repeat(32)], trees: { sapling: { size: 3 } } };
    const body = Buffer.from(
      JSON.stringify([
        { jsonrpc: "2.0", id: 1, result: a.toString("hex") },
        { jsonrpc: "2.0", id: 2, result: meta },
        { jsonrpc: "2.0", id: 3, result: b.toString("hex") },
        { jsonrpc: "2.0", id: 4, error: { code: -8, message: 'Block "not" found \u00e9' } },
        { jsonrpc: "2.0", id: 5, result: "ef".repeat(32) },
      ]),
    );
    const parsed = parseRpcBody(body) as { id: number; result?: unknown; error?: unknown }[];
    expect(Buffer.from(parsed[0]!.result as Uint8Array).equals(a)).toBe(true);
    expect(Buffer.from(parsed[2]!.result as Uint8Array).equals(b)).toBe(true);
    const plain = JSON.parse(body.toString("utf8")) as typeof parsed;
    expect(parsed.map((p) => p.id)).toEqual([1, 2, 3, 4, 5]);
    expect(parsed[1]).toEqual(plain[1]);
    expect(parsed[3]).toEqual(plain[3]);
    expect(parsed[4]).toEqual(plain[4]);
  });

  it("parses a single answer with a big result", () => {
    const a = bytes(3000, 7);
    const parsed = parseRpcBody(Buffer.from(`{"jsonrpc":"2.0","id":9,"result":"${a.toString("hex")}"}`)) as {
      result: Uint8Array;
    };
    expect(Buffer.from(parsed.result).equals(a)).toBe(true);
  });

  it("keeps bad hex and nested result strings as strings, and says undefined for non-JSON", () => {
    const bad = `${"ab".repeat(3000)}zz`;
    const p1 = parseRpcBody(Buffer.from(JSON.stringify({ id: 1, result: bad }))) as { result: unknown };
    expect(p1.result).toBe(bad);
    // A bad digit far past the first decoded piece, and an odd length, are not hex either.
    const late = `${"ab".repeat(50_000)}0g${"cd".repeat(10)}`;
    const odd = `${"ab".repeat(50_000)}c`;
    for (const hex of [late, odd])
      expect(
        (parseRpcBody(Buffer.from(JSON.stringify({ id: 1, result: hex }))) as { result: unknown }).result,
      ).toBe(hex);
    const nestedHex = "01".repeat(3000);
    const nested = { id: 1, result: { inner: { result: nestedHex } } };
    expect(parseRpcBody(Buffer.from(JSON.stringify(nested)))).toEqual(nested);
    expect(parseRpcBody(Buffer.from(`{"id":1,"result":"${"00".repeat(3000)}"`))).toBeUndefined();
    expect(parseRpcBody(Buffer.from("<html>busy</html>"))).toBeUndefined();
  });
});
