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

  it("round-trips Base58Check", () => {
    const payload = Uint8Array.from([0, 0, 1, 2, 3]);
    expect(decodeBase58check(base58check(payload))).toEqual(payload);
    expect(base58check(payload).startsWith("11")).toBe(true);
  });
});
