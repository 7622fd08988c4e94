import { blake2b as nobleBlake2b } from "@noble/hashes/blake2.js";
import blake2bWasm from "blake2b-wasm";

// BLAKE2b-256 for ZIP 244 / ZIP 229 txids. With the pure-JS @noble/hashes these txids were most of
// the parse cost; blake2b-wasm (a well-kept WebAssembly build) makes parse + txids of v5/v6-heavy
// blocks ~4.4× faster (bench/chain-parse.ts --synthetic 5000). Its module compiles asynchronously, so this module waits
// once at load (top-level await) and the hashing API stays synchronous. @noble is the fallback
// where WebAssembly is unavailable or refuses to compile.

await blake2bWasm.ready();

/** The WASM hash if it loaded and answers the RFC 7693 "abc" vector, else undefined. */
function probeWasm(): typeof blake2bWasm | undefined {
  if (!blake2bWasm.SUPPORTED) return undefined;
  try {
    const out = blake2bWasm(32, null, null, null, true)
      .update(Uint8Array.of(0x61, 0x62, 0x63))
      .digest();
    const ref = nobleBlake2b(Uint8Array.of(0x61, 0x62, 0x63), { dkLen: 32 });
    return out.every((b, i) => b === ref[i]) ? blake2bWasm : undefined;
  } catch {
    return undefined;
  }
}

const loaded = probeWasm();
let wasm = loaded;

/** Which implementation is in use (for benches and logs). */
export function blake2bBackend(): "wasm" | "noble" {
  return wasm ? "wasm" : "noble";
}

/** Benches and tests only: force the @noble fallback (or back to WASM if it loaded). */
export function useBlake2bBackend(backend: "wasm" | "noble"): void {
  wasm = backend === "wasm" ? loaded : undefined;
}

// Parts are gathered into one scratch buffer so the WASM side sees a single update call: ZIP 244
// leaves are many 4- and 32-byte fields, and each crossing into WASM costs more than the copy.
let scratch = new Uint8Array(16 * 1024);

function gather(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let total = 0;
  for (const p of parts) total += p.length;
  if (total > scratch.length) scratch = new Uint8Array(Math.max(total, 2 * scratch.length));
  let at = 0;
  for (const p of parts) {
    scratch.set(p, at);
    at += p.length;
  }
  return scratch.subarray(0, total);
}

/** BLAKE2b-256 with a 16-byte personalization over the concatenation of `parts` (ZIP 244). */
export function blake2b256(personalization: Uint8Array, parts: readonly Uint8Array[]): Uint8Array {
  if (wasm === undefined) {
    const h = nobleBlake2b.create({ dkLen: 32, personalization });
    for (const part of parts) h.update(part);
    return h.digest();
  }
  const h = wasm(32, null, null, personalization, true);
  if (parts.length > 0) h.update(gather(parts));
  return h.digest();
}
