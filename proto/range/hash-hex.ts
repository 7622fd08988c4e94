import { LightedgeError } from "../errors.ts";

/** Display hex of a wire-order hash: bytes reversed, as RPCs and explorers show it. */
export function displayHashOf(wireHash: Uint8Array): string {
  let out = "";
  for (let i = wireHash.length - 1; i >= 0; i--) out += wireHash[i]!.toString(16).padStart(2, "0");
  return out;
}

/** Wire-order bytes of a 64-char display hex hash. */
export function wireHashOf(displayHash: string): Uint8Array {
  if (!/^[0-9a-f]{64}$/i.test(displayHash)) {
    throw new LightedgeError("bad-request", "hash-hex", "a block hash is 64 hex characters");
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[31 - i] = Number.parseInt(displayHash.slice(2 * i, 2 * i + 2), 16);
  return out;
}
