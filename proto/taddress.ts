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

/** Alphabet index of each ASCII character, −1 for characters Base58 does not use. */
const DIGITS = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGITS[ALPHABET.charCodeAt(i)] = i;

/**
 * Base58Check encoding of a payload (the 4-byte double-SHA-256 checksum appended). Digits are
 * carried through a small array (no BigInt): a list of 10,000 addresses is encoded and decoded
 * several times per request at both the edge and the origin.
 */
export function base58check(payload: Uint8Array): string {
  const data = new Uint8Array(payload.length + 4);
  data.set(payload);
  data.set(checksum(payload), payload.length);
  // Base-58 digits, least significant first: each byte is 8 bits, each digit log2(58) ≈ 5.86.
  const digits = new Uint8Array(Math.ceil((data.length * 8) / 5.8) + 1);
  let length = 0;
  for (const byte of data) {
    let carry = byte;
    for (let j = 0; j < length; j++) {
      carry += digits[j]! << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits[length++] = carry % 58;
      carry = (carry / 58) | 0;
    }
  }
  let out = "";
  for (const b of data) {
    if (b !== 0) break;
    out += "1";
  }
  for (let j = length - 1; j >= 0; j--) out += ALPHABET[digits[j]!];
  return out;
}

/** The payload of a Base58Check string, or undefined when it is not one (alphabet, checksum). */
export function decodeBase58check(text: string): Uint8Array | undefined {
  // Bytes, least significant first: a Base58 digit is less than a byte, so text.length bounds them.
  const bytes = new Uint8Array(text.length);
  let length = 0;
  let zeros = 0;
  let leading = true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const digit = code < 128 ? DIGITS[code]! : -1;
    if (digit < 0) return undefined;
    if (leading && digit === 0) zeros++;
    else leading = false;
    let carry = digit;
    for (let j = 0; j < length; j++) {
      carry += bytes[j]! * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes[length++] = carry & 0xff;
      carry >>= 8;
    }
  }
  const data = new Uint8Array(zeros + length);
  for (let j = 0; j < length; j++) data[zeros + length - 1 - j] = bytes[j]!;
  if (data.length < 5) return undefined;
  const payload = data.subarray(0, data.length - 4);
  const sum = checksum(payload);
  for (let i = 0; i < 4; i++) if (sum[i] !== data[data.length - 4 + i]) return undefined;
  return payload;
}

/**
 * The 22-byte payload (prefix, hash) of a transparent address of `network`, or why it is not one.
 * The length is checked first, so a 2 MB string costs nothing.
 */
export function taddressPayload(
  address: string,
  network: TaddrNetwork,
): { payload: Uint8Array; problem?: undefined } | { payload?: undefined; problem: string } {
  if (address.length !== TADDR_LENGTH)
    return { problem: `a transparent address is ${TADDR_LENGTH} characters` };
  const payload = decodeBase58check(address);
  if (payload === undefined) return { problem: "not Base58Check (bad character or checksum)" };
  if (payload.length !== PAYLOAD_BYTES) return { problem: "not a transparent address" };
  const p = TADDR_PREFIXES[network];
  const is = (prefix: readonly number[]) => payload[0] === prefix[0] && payload[1] === prefix[1];
  if (!is(p.p2pkh) && !is(p.p2sh)) return { problem: `not a ${network} transparent address` };
  return { payload };
}

/** Why `address` is not a transparent address of `network`, or undefined when it is one. */
export function taddressProblem(address: string, network: TaddrNetwork): string | undefined {
  return taddressPayload(address, network).problem;
}

export function isTaddrNetwork(network: string): network is TaddrNetwork {
  return Object.hasOwn(TADDR_PREFIXES, network);
}
