import { createHash } from "node:crypto";
import { base58check, TADDR_PREFIXES, type TaddrNetwork } from "../../proto/taddress.ts";

const prefixes = TADDR_PREFIXES;

export type Network = TaddrNetwork;

function sha256(b: Uint8Array): Buffer {
  return createHash("sha256").update(b).digest();
}

export { base58check };

/** The t-address a scriptPubKey pays (P2PKH or P2SH), or undefined for other scripts. */
export function scriptAddress(script: Uint8Array, network: Network): string | undefined {
  const p = prefixes[network];
  if (
    script.length === 25 &&
    script[0] === 0x76 &&
    script[1] === 0xa9 &&
    script[2] === 0x14 &&
    script[23] === 0x88 &&
    script[24] === 0xac
  )
    return base58check(Uint8Array.from([...p.p2pkh, ...script.subarray(3, 23)]));
  if (script.length === 23 && script[0] === 0xa9 && script[1] === 0x14 && script[22] === 0x87)
    return base58check(Uint8Array.from([...p.p2sh, ...script.subarray(2, 22)]));
  return undefined;
}

/** A P2PKH script for a 20-byte key hash. */
export function p2pkhScript(keyHash: Uint8Array): Uint8Array {
  return Uint8Array.from([0x76, 0xa9, 0x14, ...keyHash, 0x88, 0xac]);
}

/** The fixed t-addresses synthetic chains pay (so address RPCs return data); same for every seed. */
export function knownScripts(): Uint8Array[] {
  return [0, 1, 2].map((i) =>
    p2pkhScript(sha256(new TextEncoder().encode(`lightedge-devnode-address-${i}`)).subarray(0, 20)),
  );
}
