import { createHash } from "node:crypto";

/** Transparent address prefixes (protocol spec §5.6.1.1): P2PKH t1/tm, P2SH t3/t2. */
const prefixes = {
  mainnet: { p2pkh: [0x1c, 0xb8], p2sh: [0x1c, 0xbd] },
  testnet: { p2pkh: [0x1d, 0x25], p2sh: [0x1c, 0xba] },
  regtest: { p2pkh: [0x1d, 0x25], p2sh: [0x1c, 0xba] },
} as const;

export type Network = keyof typeof prefixes;

const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

function sha256(b: Uint8Array): Buffer {
  return createHash("sha256").update(b).digest();
}

export function base58check(payload: Uint8Array): string {
  const data = Buffer.concat([payload, sha256(sha256(payload)).subarray(0, 4)]);
  let n = BigInt(`0x${data.toString("hex")}`);
  let out = "";
  while (n > 0n) {
    out = alphabet[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of data) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

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
