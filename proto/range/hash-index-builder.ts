import { LightedgeError } from "../errors.ts";
import type { CodecOptions } from "./encode.ts";
import { encodeHashLevel, type HashEntries, type RangeHashes, sortedEntries } from "./hash-index-codec.ts";
import {
  DEFAULT_EPOCH_RANGES,
  HASH_INDEX_VERSION,
  type HashIndexLevel,
  type HeadHashIndex,
  hashIndexLevel,
} from "./hash-index-layout.ts";
import { encodeRangeEnds, RANGE_ENDS_VERSION, type RangeEnds, rangeEndsKey } from "./range-ends.ts";

export interface HashIndexBuilderOptions {
  network: string;
  rangeSize: number;
  /** Index of the first sealed range (the head's firstHeight / rangeSize). */
  firstIndex: number;
  epochRanges?: number;
}

/**
 * The writer's side of the hash index (proto/range-format.md §Hash index), as ranges seal in
 * order. State: `base` (the entries of every whole epoch so far) and `recent` (each later range's
 * entries). Adding the range that closes an epoch folds `recent` into `base`. Nothing is
 * ever rewritten: a new base level gets its own key, and each head names the levels it uses.
 * When every range comes with its ends, each level also gets its range-ends object
 * (proto/range/range-ends.ts) and the head field says so.
 * Pure (no I/O): the sealer, bootstrap and the scale generator put what `objects` returns.
 */
export class HashIndexBuilder {
  readonly network: string;
  readonly rangeSize: number;
  readonly firstIndex: number;
  readonly epochRanges: number;
  /** The base level's keys: sorted when one part, else sorted on first use (`#sortedBase`). */
  #baseKeys: HashEntries[] = [];
  /** The base level's ranges' full message lengths, in range order. */
  #baseLengths: Uint32Array[] = [];
  #recent: RangeHashes[] = [];
  /** Every range's ends, in order, while every range added has come with them. */
  #ends: RangeEnds[] | undefined = [];
  /** The base level of this many ranges is known to be stored: its shards, and its ends object. */
  #storedBaseRanges = -1;
  #storedBaseEnds = -1;

  constructor(o: HashIndexBuilderOptions) {
    this.network = o.network;
    this.rangeSize = o.rangeSize;
    this.firstIndex = o.firstIndex;
    this.epochRanges = o.epochRanges ?? DEFAULT_EPOCH_RANGES;
    if (!Number.isInteger(this.epochRanges) || this.epochRanges < 1 || this.epochRanges > 65_536)
      throw new LightedgeError("bad-request", "hash-index", `invalid epoch size ${this.epochRanges}`);
  }

  /** Ranges added so far (from firstIndex). */
  get rangeCount(): number {
    return this.#baseRanges + this.#recent.length;
  }

  /** The head's `hashIndex` field for what this builder writes. */
  get headField(): HeadHashIndex {
    const field: HeadHashIndex = { version: HASH_INDEX_VERSION, epochRanges: this.epochRanges };
    if (this.#ends !== undefined) field.rangeEnds = RANGE_ENDS_VERSION;
    return field;
  }

  /** The next range's index input (one entry per block) and its ends; ranges must come in order. */
  add(index: number, hashes: RangeHashes, ends?: RangeEnds): void {
    const expected = this.firstIndex + this.rangeCount;
    const count = hashes.keys.length;
    if (index !== expected || count !== this.rangeSize || hashes.fullLengths.length !== count)
      throw new LightedgeError(
        "internal",
        "hash-index",
        `expected range ${expected} with ${this.rangeSize} entries, got range ${index} with ${count}`,
      );
    this.#recent.push(hashes);
    if (ends === undefined) this.#ends = undefined;
    else this.#ends?.push(ends);
    if (this.#recent.length === this.epochRanges) {
      // Folded lazily: adopting 3,500 ranges must not sort a growing base 55 times.
      for (const r of this.#recent) {
        this.#baseKeys.push(r.keys);
        this.#baseLengths.push(r.fullLengths);
      }
      this.#recent = [];
    }
  }

  get #baseRanges(): number {
    return this.#baseLengths.length;
  }

  #sortedBase(): HashEntries {
    if (this.#baseKeys.length !== 1) this.#baseKeys = [sortedEntries(this.#baseKeys)];
    return this.#baseKeys[0]!;
  }

  /**
   * Says the current base level is in the store (put, or named by a head that was read): its
   * shards, and its range-ends object unless `endsToo` is false (a head naming shards only).
   */
  baseStored(endsToo = true): void {
    this.#storedBaseRanges = this.#baseRanges;
    if (endsToo) this.#storedBaseEnds = this.#baseRanges;
  }

  /**
   * The objects the head for the ranges added so far names and the store may lack: the base level
   * until `baseStored` says it is there, the recent level every time.
   */
  objects(options: CodecOptions = {}): { key: string; bytes: Uint8Array }[] {
    const out: { key: string; bytes: Uint8Array }[] = [];
    const [base, recent] = this.levels();
    if (base !== undefined && this.#storedBaseRanges !== this.#baseRanges) {
      out.push(...encodeHashLevel(base, this.#sortedBase(), this.#baseLengths, options));
    }
    if (recent !== undefined)
      out.push(
        ...encodeHashLevel(
          recent,
          sortedEntries(this.#recent.map((r) => r.keys)),
          this.#recent.map((r) => r.fullLengths),
          options,
        ),
      );
    const ends = this.#ends;
    if (ends !== undefined) {
      if (base !== undefined && this.#storedBaseEnds !== this.#baseRanges)
        out.push({
          key: rangeEndsKey(base),
          bytes: encodeRangeEnds(base, ends.slice(0, this.#baseRanges), options),
        });
      if (recent !== undefined)
        out.push({
          key: rangeEndsKey(recent),
          bytes: encodeRangeEnds(recent, ends.slice(this.#baseRanges), options),
        });
    }
    return out;
  }

  /** [base level or undefined, recent level or undefined], as headHashLevels computes them. */
  levels(): [HashIndexLevel | undefined, HashIndexLevel | undefined] {
    const at = (from: number, count: number) =>
      count === 0
        ? undefined
        : hashIndexLevel(
            this.network,
            this.rangeSize,
            this.firstIndex + from,
            this.firstIndex + from + count - 1,
          );
    return [at(0, this.#baseRanges), at(this.#baseRanges, this.#recent.length)];
  }
}
