import { sha256 } from "@noble/hashes/sha2.js";

/**
 * Transparent addresses: Base58Check of a 2-byte prefix and a 20-byte hash (protocol spec
 * §5.6.1.1): P2PKH t1 / tm, P2SH t3 / t2. Regtest uses the testnet prefixes (zcashd
 * chainparams.cpp). Pure: no I/O, the same code in the origin and the edge.
 */
export const TADDR_PREFIXES = {
  mainnet: { p2pkh: [0x1c, 0xb8], p2sh: [0x1c, 0xbd] },
  testnet: { p2pkh: [0x1d, 0x25], p2sh: [0x1c, 0xba] },
  regtest: { p2pkh: [0x1d, 0x25], p2sh: [0x1c, 0xba] },
} as const;

export type TaddrNetwork = keyof typeof TADDR_PREFIXES;

/** Every t-address is 26 bytes (prefix, hash, checksum): 35 Base58 characters. */
export const TADDR_LENGTH = 35;
const PAYLOAD_BYTES = 22;

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

function checksum(payload: Uint8Array): Uint8Array {
  return sha256(sha256(payload)).subarray(0, 4);
}

/** Base58Check encoding of a payload (the 4-byte double-SHA-256 checksum appended). */
export function base58check(payload: Uint8Array): string {
  const data = new Uint8Array(payload.length + 4);
  data.set(payload);
  data.set(checksum(payload), payload.length);
  let n = 0n;
  for (const b of data) n = (n << 8n) | BigInt(b);
  let out = "";
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of data) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/** The payload of a Base58Check string, or undefined when it is not one (alphabet, checksum). */
export function decodeBase58check(text: string): Uint8Array | undefined {
  let n = 0n;
  for (const c of text) {
    const digit = ALPHABET.indexOf(c);
    if (digit < 0) return undefined;
    n = n * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  for (const c of text) {
    if (c !== "1") break;
    bytes.unshift(0);
  }
  if (bytes.length < 5) return undefined;
  const data = Uint8Array.from(bytes);
  const payload = data.subarray(0, data.length - 4);
  const sum = checksum(payload);
  for (let i = 0; i < 4; i++) if (sum[i] !== data[data.length - 4 + i]) return undefined;
  return payload;
}

/**
 * Why `address` is not a transparent address of `network`, or undefined when it is one. The
 * length is checked first, so a 2 MB string costs nothing.
 */
export function taddressProblem(address: string, network: TaddrNetwork): string | undefined {
  if (address.length !== TADDR_LENGTH) return `a transparent address is ${TADDR_LENGTH} characters`;
  const payload = decodeBase58check(address);
  if (payload === undefined) return "not Base58Check (bad character or checksum)";
  if (payload.length !== PAYLOAD_BYTES) return "not a transparent address";
  const p = TADDR_PREFIXES[network];
  const is = (prefix: readonly number[]) => payload[0] === prefix[0] && payload[1] === prefix[1];
  if (!is(p.p2pkh) && !is(p.p2sh)) return `not a ${network} transparent address`;
  return undefined;
}

export function isTaddrNetwork(network: string): network is TaddrNetwork {
  return Object.hasOwn(TADDR_PREFIXES, network);
}
