import { describe, expect, it } from "vitest";
import { knownScripts, scriptAddress } from "../origin/devnode/address.ts";
import { base58check, decodeBase58check, TADDR_PREFIXES, taddressProblem } from "./taddress.ts";

// Mainnet addresses from the Zcash protocol spec's examples and the devnode's fixed scripts.
const t1 = base58check(Uint8Array.from([...TADDR_PREFIXES.mainnet.p2pkh, ...new Uint8Array(20).fill(7)]));
const t3 = base58check(Uint8Array.from([...TADDR_PREFIXES.mainnet.p2sh, ...new Uint8Array(20).fill(9)]));

describe("transparent address syntax", () => {
  it("accepts P2PKH and P2SH addresses of the served network only", () => {
    expect(t1).toMatch(/^t1/);
    expect(t3).toMatch(/^t3/);
    expect(taddressProblem(t1, "mainnet")).toBeUndefined();
    expect(taddressProblem(t3, "mainnet")).toBeUndefined();
    expect(taddressProblem(t1, "testnet")).toMatch(/not a testnet/);
    for (const script of knownScripts()) {
      const tm = scriptAddress(script, "regtest")!;
      expect(tm).toMatch(/^tm/);
      expect(taddressProblem(tm, "regtest")).toBeUndefined();
      expect(taddressProblem(tm, "testnet")).toBeUndefined();
      expect(taddressProblem(tm, "mainnet")).toMatch(/not a mainnet/);
    }
  });

  it("refuses bad lengths, characters and checksums without decoding long input", () => {
    expect(taddressProblem(t1.slice(0, 34), "mainnet")).toMatch(/35 characters/);
    expect(taddressProblem(`t${"1".repeat(2_000_000)}`, "mainnet")).toMatch(/35 characters/);
    expect(taddressProblem(`${t1.slice(0, 34)}0`, "mainnet")).toMatch(/Base58Check/);
    const last = t1[34] === "a" ? "b" : "a";
    expect(taddressProblem(`${t1.slice(0, 34)}${last}`, "mainnet")).toMatch(/Base58Check/);
  });

  it("encodes and decodes as the textbook big-number Base58 does", () => {
    const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    const reference = (data: Uint8Array) => {
      let n = 0n;
      for (const b of data) n = (n << 8n) | BigInt(b);
      let out = "";
      for (; n > 0n; n /= 58n) out = alphabet[Number(n % 58n)] + out;
      for (const b of data) {
        if (b !== 0) break;
        out = `1${out}`;
      }
      return out;
    };
    let seed = 1;
    const next = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 24;
    };
    for (let i = 0; i < 500; i++) {
      const payload = Uint8Array.from({ length: 1 + (i % 40) }, (_, j) => (j < i % 4 ? 0 : next()));
      const text = base58check(payload);
      const checked = decodeBase58check(text)!;
      expect(checked).toEqual(payload);
      expect(reference(Uint8Array.from([...payload, ...decodeChecksum(text, payload.length)]))).toBe(text);
    }
    expect(decodeBase58check("")).toBeUndefined();
    expect(decodeBase58check("1111")).toBeUndefined();
    expect(decodeBase58check(`${t1.slice(0, 10)}é${t1.slice(11)}`)).toBeUndefined();
  });

  it("round-trips Base58Check", () => {
    const payload = Uint8Array.from([0, 0, 1, 2, 3]);
    expect(decodeBase58check(base58check(payload))).toEqual(payload);
    expect(base58check(payload).startsWith("11")).toBe(true);
  });
});

/** The 4 checksum bytes a Base58Check string ends with (its payload is `payloadBytes` long). */
function decodeChecksum(text: string, payloadBytes: number): Uint8Array {
  const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  let n = 0n;
  for (const c of text) n = n * 58n + BigInt(alphabet.indexOf(c));
  const out = new Uint8Array(payloadBytes + 4);
  for (let i = out.length - 1; i >= 0; i--, n >>= 8n) out[i] = Number(n & 0xffn);
  return out.subarray(payloadBytes);
}
