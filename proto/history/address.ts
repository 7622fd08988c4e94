import { LightedgeError } from "../errors.ts";
import {
  base58check,
  isTaddrNetwork,
  TADDR_PREFIXES,
  type TaddrNetwork,
  taddressPayload,
} from "../taddress.ts";

/**
 * Address keys (proto/range-format.md §Node-free history, Transparent address index, Addresses):
 * the 20-byte hash of an exact P2PKH or P2SH script, then a type byte — the two forms t-addresses
 * encode (protocol spec §5.6.1.1). 21 bytes that sort and compare as bytes; the script and the
 * t-address string are recomputed from them.
 */

const WHERE = "history-address";

export const ADDRESS_KEY_BYTES = 21;
const HASH_BYTES = 20;
/** Type byte of a P2PKH address key (t1…, tm…). */
export const P2PKH = 0x00;
/** Type byte of a P2SH address key (t3…, t2…). */
export const P2SH = 0x01;

function keyOf(hash: Uint8Array, type: number): Uint8Array {
  const key = new Uint8Array(ADDRESS_KEY_BYTES);
  key.set(hash, 0);
  key[HASH_BYTES] = type;
  return key;
}

/**
 * The address key of an output's scriptPubKey: `76 a9 14 <20> 88 ac` (P2PKH) or `a9 14 <20> 87`
 * (P2SH) exactly; undefined for every other script (not addressable, as nodes do not index it).
 */
export function addressKeyOfScript(script: Uint8Array): Uint8Array | undefined {
  const s = script;
  if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac)
    return keyOf(s.subarray(3, 23), P2PKH);
  if (s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87)
    return keyOf(s.subarray(2, 22), P2SH);
  return undefined;
}

function assertAddressKey(key: Uint8Array): void {
  if (key.length !== ADDRESS_KEY_BYTES || (key[HASH_BYTES] !== P2PKH && key[HASH_BYTES] !== P2SH))
    throw new LightedgeError("bad-request", WHERE, "an address key is a 20-byte hash and a type byte 0 or 1");
}

/** The scriptPubKey an address key stands for. */
export function scriptOfAddressKey(key: Uint8Array): Uint8Array {
  assertAddressKey(key);
  const hash = key.subarray(0, HASH_BYTES);
  return key[HASH_BYTES] === P2PKH
    ? Uint8Array.from([0x76, 0xa9, 0x14, ...hash, 0x88, 0xac])
    : Uint8Array.from([0xa9, 0x14, ...hash, 0x87]);
}

function prefixesOf(network: string) {
  if (!isTaddrNetwork(network))
    throw new LightedgeError("bad-request", WHERE, `no transparent addresses on network ${network}`);
  return TADDR_PREFIXES[network];
}

/** The t-address string of an address key on `network` (regtest uses testnet's prefixes). */
export function taddressOfKey(key: Uint8Array, network: string): string {
  assertAddressKey(key);
  const prefixes = prefixesOf(network);
  const prefix = key[HASH_BYTES] === P2PKH ? prefixes.p2pkh : prefixes.p2sh;
  return base58check(Uint8Array.from([...prefix, ...key.subarray(0, HASH_BYTES)]));
}

/** The address key of a t-address of `network`; bad-request when it is not one (client input). */
export function addressKeyOfTaddress(address: string, network: string): Uint8Array {
  const prefixes = prefixesOf(network);
  const { payload, problem } = taddressPayload(address, network as TaddrNetwork);
  if (payload === undefined) throw new LightedgeError("bad-request", WHERE, problem);
  const type = payload[0] === prefixes.p2pkh[0] && payload[1] === prefixes.p2pkh[1] ? P2PKH : P2SH;
  return keyOf(payload.subarray(2), type);
}
