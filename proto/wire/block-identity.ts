import { LightedgeError } from "../../proto/errors.ts";

/** Height, hash and prevHash of an encoded CompactBlock (fields 2, 3, 4), read without decoding vtx. */
export interface BlockIdentity {
  height: number;
  wireHash: Uint8Array;
  wirePrevHash: Uint8Array;
}

/**
 * Walks the top-level protobuf fields of a CompactBlock, skipping the large ones (vtx) by length.
 * Enough to check chain continuity of the origin's tail (edge/tail/origin-segment.ts), or that a
 * stored frame is the block a hash-index entry says (proto/range/hash-index-lookup.ts), at a
 * fraction of a full decode. A message that does not parse is "malformed", named by `source`.
 */
export function readBlockIdentity(message: Uint8Array, source = "a block"): BlockIdentity {
  let at = 0;
  let height = 0;
  let wireHash = new Uint8Array(0);
  let wirePrevHash = new Uint8Array(0);
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (at >= message.length) throw malformed(source);
      const b = message[at++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
    throw malformed(source);
  };
  while (at < message.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 0) {
      const v = varint();
      if (field === 2) height = v;
    } else if (wire === 2) {
      const len = varint();
      if (at + len > message.length) throw malformed(source);
      if (field === 3) wireHash = message.slice(at, at + len);
      if (field === 4) wirePrevHash = message.slice(at, at + len);
      at += len;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw malformed(source);
  }
  if (at !== message.length) throw malformed(source);
  return { height, wireHash, wirePrevHash };
}

function malformed(source: string): LightedgeError {
  return new LightedgeError("malformed", "wire.block-identity", `${source} that does not parse`);
}
