import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fromHex, toHex } from "../bytes.ts";
import { base58check, TADDR_PREFIXES } from "../taddress.ts";
import {
  addressKeyOfScript,
  addressKeyOfTaddress,
  P2PKH,
  P2SH,
  scriptOfAddressKey,
  taddressOfKey,
} from "./index.ts";

/** Scripts and the addresses nodes report for them (test/corpus/chain: zebrad and zcashd answers). */
const known: [network: string, scriptHex: string, address: string][] = [
  ["mainnet", "76a914751e76e8199196d454941c45d1b3a323f1433bd688ac", "t1UYsZVJkLPeMjxEtACvSxfWuNmddpWfxzs"],
  ["mainnet", "76a91406afd46bcdfd22ef94ac122aa11f241244a37ecc88ac", "t1JUxhMSGFmzKY5BTp1PsQwG4Ceq642SmnB"],
  ["mainnet", "a9147d46a730d31f97b1930d3368a967c309bd4d136a87", "t3Vz22vK5z2LcKEdg16Yv4FFneEL1zg9ojd"],
  ["testnet", "a914ef775f1f997f122a062fff1a2d7443abd1f9c64287", "t2UNzUUx8mWBCRYPRezvA363EYXyEpHokyi"],
];

const corpus = new URL("../../test/corpus/chain/", import.meta.url);
const badRequest = expect.objectContaining({ kind: "bad-request" });

describe("address keys", () => {
  it("match the addresses nodes report for real scripts, both ways", () => {
    const utxo = JSON.parse(readFileSync(new URL("tx/mainnet/darkside-utxo-1631177.json", corpus), "utf8"));
    const cases = [...known, ["mainnet", toHex(Buffer.from(utxo.script, "base64")), utxo.address] as const];
    for (const [network, scriptHex, address] of cases) {
      const key = addressKeyOfScript(fromHex(scriptHex))!;
      expect(key.length).toBe(21);
      expect(key[20]).toBe(scriptHex.startsWith("76") ? P2PKH : P2SH);
      expect(taddressOfKey(key, network)).toBe(address);
      expect(addressKeyOfTaddress(address, network)).toEqual(key);
      expect(toHex(scriptOfAddressKey(key))).toBe(scriptHex);
    }
  });

  it("give regtest the testnet prefixes (tm…, t2…)", () => {
    const p2pkh = Uint8Array.from([...new Uint8Array(20).fill(0xaa), P2PKH]);
    const p2sh = Uint8Array.from([...new Uint8Array(20).fill(0xbb), P2SH]);
    expect(taddressOfKey(p2pkh, "regtest")).toMatch(/^tm/);
    expect(taddressOfKey(p2pkh, "regtest")).toBe(taddressOfKey(p2pkh, "testnet"));
    expect(taddressOfKey(p2sh, "regtest")).toMatch(/^t2/);
    expect(taddressOfKey(p2pkh, "mainnet")).toMatch(/^t1/);
    expect(taddressOfKey(p2sh, "mainnet")).toMatch(/^t3/);
    for (const key of [p2pkh, p2sh])
      expect(addressKeyOfTaddress(taddressOfKey(key, "regtest"), "regtest")).toEqual(key);
  });

  it("exist for the exact P2PKH and P2SH templates only", () => {
    const hash = "11".repeat(20);
    for (const scriptHex of [
      "21027a46eb513588b01b37ea24303f4b628afd12cc20df789fede0921e43cad3e875ac", // P2PK
      `76a914${hash}88ac00`, // P2PKH and a byte more
      `76a914${hash}87ac`, // wrong opcode
      `76a913${hash.slice(2)}88ac`, // 19-byte push
      `a914${hash}88`, // P2SH ending in OP_EQUALVERIFY
      `a914${hash}`, // truncated
      "6a0401020304", // OP_RETURN
      "",
    ])
      expect(addressKeyOfScript(fromHex(scriptHex)), scriptHex).toBeUndefined();
  });

  it("refuse t-addresses of another network, bad strings, and bad keys", () => {
    expect(() => addressKeyOfTaddress(known[0]![2], "testnet")).toThrow(/not a testnet/);
    expect(() => addressKeyOfTaddress(`${known[0]![2].slice(0, 34)}1`, "mainnet")).toThrow(badRequest);
    expect(() => addressKeyOfTaddress("zs1notatransparentaddress", "mainnet")).toThrow(badRequest);
    expect(() => addressKeyOfTaddress(known[0]![2], "mainnet2")).toThrow(/no transparent addresses/);
    const sprout = base58check(Uint8Array.from([0x16, 0x9a, ...new Uint8Array(20)]));
    expect(() => addressKeyOfTaddress(sprout, "mainnet")).toThrow(badRequest);
    expect(() => scriptOfAddressKey(new Uint8Array(20))).toThrow(badRequest);
    expect(() => taddressOfKey(Uint8Array.from([...new Uint8Array(20), 2]), "mainnet")).toThrow(badRequest);
    expect(TADDR_PREFIXES.regtest).toEqual(TADDR_PREFIXES.testnet);
  });
});
