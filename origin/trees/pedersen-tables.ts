import { type EdPoint, edBatchAdd, edMultiple, JUBJUB_D, JUBJUB_P, pedersenGenerator } from "./jubjub.ts";

/**
 * Window tables for the 516-bit Sapling Merkle Pedersen hash: windows of up to 4 chunks (12 bits)
 * that never cross a segment boundary, 44 in all. Entry v of a window is
 * Σₖ enc(chunk k of v)·2^{4(j₀+k)}·I_segment, with enc(s₀s₁s₂) = (1 − 2s₂)(1 + s₀ + 2s₁).
 */
export interface PedersenWindow {
  shift: bigint;
  mask: bigint;
  yMinusX: bigint[];
  yPlusX: bigint[];
  xy2d: bigint[];
}

const P = JUBJUB_P;
const SEGMENT_CHUNKS = 63;
const MESSAGE_CHUNKS = 172;

function chunkEnc(c: number): bigint {
  return BigInt((1 - 2 * ((c >> 2) & 1)) * (1 + (c & 1) + 2 * ((c >> 1) & 1)));
}

/** [c]·B for c = −4..4 (index c + 4) of every base, in three batched rounds. */
function smallMultiples(bases: readonly EdPoint[]): EdPoint[][] {
  const two = edBatchAdd(bases, bases);
  const three = edBatchAdd(two, bases);
  const four = edBatchAdd(two, two);
  const neg = (p: EdPoint) => ({ x: (P - p.x) % P, y: p.y });
  return bases.map((b, i) => {
    const pos = [b, two[i]!, three[i]!, four[i]!];
    return [...pos.map(neg).reverse(), { x: 0n, y: 1n }, ...pos];
  });
}

/** 16^j·I for j < count, by repeated doubling. */
function powersOf16(gen: EdPoint, count: number): EdPoint[] {
  const out = [gen];
  while (out.length < count) {
    let p = out[out.length - 1]!;
    for (let k = 0; k < 4; k++) p = edBatchAdd([p], [p])[0]!;
    out.push(p);
  }
  return out;
}

/** All 2^(3·len) sums for one window, built by combining per-chunk tables with batched additions. */
function windowPoints(multiples: readonly EdPoint[][], j0: number, len: number): EdPoint[] {
  const chunkTable = (k: number) =>
    Array.from({ length: 8 }, (_, c) => multiples[j0 + k]![Number(chunkEnc(c)) + 4]!);
  let table = chunkTable(0);
  for (let k = 1; k < len; k++) {
    const next = chunkTable(k);
    const as: EdPoint[] = [];
    const bs: EdPoint[] = [];
    for (let hi = 0; hi < 8; hi++) {
      for (let lo = 0; lo < table.length; lo++) {
        as.push(table[lo]!);
        bs.push(next[hi]!);
      }
    }
    table = edBatchAdd(as, bs);
  }
  return table;
}

export function buildPedersenWindows(): PedersenWindow[] {
  const windows: PedersenWindow[] = [];
  for (let seg = 0; seg * SEGMENT_CHUNKS < MESSAGE_CHUNKS; seg++) {
    const chunks = Math.min(SEGMENT_CHUNKS, MESSAGE_CHUNKS - seg * SEGMENT_CHUNKS);
    const multiples = smallMultiples(powersOf16(edMultiple(pedersenGenerator(seg + 1), 1n), chunks));
    for (let j0 = 0; j0 < chunks; j0 += 4) {
      const len = Math.min(4, chunks - j0);
      const pts = windowPoints(multiples, j0, len);
      windows.push({
        shift: BigInt(3 * (seg * SEGMENT_CHUNKS + j0)),
        mask: (1n << BigInt(3 * len)) - 1n,
        yMinusX: pts.map((p) => (p.y - p.x + P) % P),
        yPlusX: pts.map((p) => (p.y + p.x) % P),
        xy2d: pts.map((p) => (((2n * JUBJUB_D * p.x) % P) * p.y) % P),
      });
    }
  }
  return windows;
}
