import {
  addressIndexLevel,
  encodeAddressIndexLevel,
  encodeAddressRecord,
  encodeTxEntry,
  encodeTxIndexLevel,
  encodeTxTable,
  HEAD_HISTORY_VERSION,
  type HeadHistory,
  historyCoveredRanges,
  type LevelObject,
  RECEIVED,
  rawBlocksKey,
  rawBlocksParts,
  SPENT,
  txIndexLevel,
  txTableKey,
} from "../../proto/history/index.ts";
import type { CodecOptions } from "../../proto/range/encode.ts";
import { headLevelSpans } from "../../proto/range/hash-index-layout.ts";
import type { HeadObject } from "../../proto/range/head.ts";
import type { LevelSpan } from "../../proto/range/keys.ts";
import type { Body } from "../store/index.ts";
import type { BlockHistory } from "./block-history.ts";
import type { AddressRow, HistoryDb } from "./history-db.ts";
import { levelsDue } from "./level-schedule.ts";

/** An object a range's sealing writes: its key and bytes (one buffer or parts). */
export interface SealedObject {
  key: string;
  body: Body;
}

/**
 * A range as history seals it: each block's history and hash, and the bytes of its raw-block
 * object — parts of the blocks' bytes in memory (`rangeOfBlocks`), or the file they were spooled to
 * as they arrived (raw-spool.ts).
 */
export interface HistoryRange {
  blocks: readonly { history: BlockHistory; wireHash: Uint8Array }[];
  raw: Body;
}

/**
 * A range of blocks held in memory. Its raw-block object is parts: the blocks' own bytes are
 * written, not a copy of the whole range (proto/frame.ts `frameParts`).
 */
export function rangeOfBlocks(blocks: readonly HistoryBlock[]): HistoryRange {
  return { blocks, raw: rawBlocksParts(blocks.map((b) => b.raw)) };
}

/** A block as history needs it at sealing: its raw bytes, what they hold, its hash. */
export interface HistoryBlock {
  raw: Uint8Array;
  history: BlockHistory;
  wireHash: Uint8Array;
}

export interface HistoryWriterOptions {
  db: HistoryDb;
  network: string;
  rangeSize: number;
  /** Index of the first sealed range (the head's firstHeight / rangeSize). */
  firstIndex: number;
  /** Ranges per epoch of the history levels (the hash index's). */
  epochRanges: number;
  codec?: CodecOptions;
}

/**
 * The writer's side of node-free history (proto/range-format.md §Node-free history, Writing): each
 * sealed range's raw-block object and transaction table, and the transaction and address index
 * levels heads name — read out of the history database sorted, one shard at a time, so a level of
 * millions of entries never sits in memory. Ranges are applied to the database in order as they
 * start sealing; levels are built when a head that rewrites them is about to be written
 * (level-schedule.ts: every head while following the node, now and then while catching up).
 */
export class HistoryWriter {
  readonly #o: HistoryWriterOptions;
  /** The `history` field of the levels the store holds (the newest head's). */
  #stored: HeadHistory;

  constructor(o: HistoryWriterOptions) {
    this.#o = o;
    this.#stored = { version: HEAD_HISTORY_VERSION, epochRanges: o.epochRanges, rangeCount: 0, levels: [] };
  }

  /**
   * Applies range `index` to the database (synchronously: ranges must be applied in order, and
   * the sealer starts them in order) and returns its raw-block object and transaction table.
   */
  sealRange(index: number, range: HistoryRange): SealedObject[] {
    const { db, network, rangeSize, codec } = this.#o;
    const { blocks } = range;
    const applied = db.applied();
    // Re-sealing a range the database already holds (a crash after it was applied, before its
    // head): its rows are a pure function of the range, so they stand.
    if (applied === undefined || applied.height < blocks[0]!.history.height) db.applyRange(blocks);
    const table = encodeTxTable(
      { network, rangeSize, index },
      blocks.map((b) => ({ length: b.history.rawLength, transactions: b.history.txs })),
      codec,
    );
    return [
      { key: rawBlocksKey(network, rangeSize, index), body: range.raw },
      { key: txTableKey(network, rangeSize, index), body: table },
    ];
  }

  /** Ranges the levels in the store cover, from the first. */
  get coveredRanges(): number {
    return this.#stored.rangeCount!;
  }

  /**
   * The `history` field of a head that does not rewrite the levels: the store's levels, which may
   * cover fewer ranges than it names.
   */
  get storedField(): HeadHistory {
    return this.#stored;
  }

  /** Whether a head of `rangeCount` ranges rewrites the levels (level-schedule.ts). */
  levelsDue(rangeCount: number, catchingUp: boolean): boolean {
    return levelsDue({
      covered: this.coveredRanges,
      rangeCount,
      epochRanges: this.#o.epochRanges,
      catchingUp,
    });
  }

  /** The levels covering `rangeCount` ranges (base first). */
  spans(rangeCount: number): LevelSpan[] {
    const { network, rangeSize, firstIndex, epochRanges } = this.#o;
    return headLevelSpans(
      { network, rangeSize, firstHeight: firstIndex * rangeSize, rangeCount },
      epochRanges,
    );
  }

  /** The `history` field of levels covering `rangeCount` ranges: each level's counts, from the database. */
  headField(rangeCount: number): HeadHistory {
    return {
      version: HEAD_HISTORY_VERSION,
      epochRanges: this.#o.epochRanges,
      rangeCount,
      levels: this.spans(rangeCount).map((span) => {
        const { low, high } = heights(span);
        return { transactions: this.#o.db.txCount(low, high), addresses: this.#o.db.addressCount(low, high) };
      }),
    };
  }

  /**
   * The index objects of levels covering `rangeCount` ranges that the store may lack: the base
   * level unless the store's is the same, the recent level every time. Streamed: put each before
   * taking the next.
   */
  *levelObjects(rangeCount: number): Generator<LevelObject> {
    const { db, codec } = this.#o;
    const spans = this.spans(rangeCount);
    const field = this.headField(rangeCount);
    // The store's base level: the one its levels' head names.
    const storedBase = this.spans(this.coveredRanges).find((span) => this.#isBase(span))?.lastIndex;
    for (const [k, span] of spans.entries()) {
      if (this.#isBase(span) && span.lastIndex === storedBase) continue;
      const { low, high } = heights(span);
      const counts = field.levels[k]!;
      const txs = txIndexLevel(span, counts.transactions);
      yield* encodeTxIndexLevel(txs, mapIter(db.txEntries(low, high), encodeTxEntry), codec);
      const addresses = addressIndexLevel(span, counts.addresses);
      yield* encodeAddressIndexLevel(
        addresses,
        mapIter(db.addressRecords(low, high), addressRowBytes),
        codec,
      );
    }
  }

  /**
   * Says the store holds the levels `head` names (it was written, or read at start): later heads
   * name them until levels are rewritten. A version-1 field (levels of every range) becomes the
   * version-2 field of as many ranges, so a later head with more ranges does not claim them.
   */
  stored(head: HeadObject): void {
    const covered = historyCoveredRanges(head);
    if (covered === undefined || head.history === undefined) return;
    this.#stored = { ...head.history, version: HEAD_HISTORY_VERSION, rangeCount: covered };
  }

  /** The base level covers whole epochs from the first range; a recent level is never a whole epoch. */
  #isBase(span: LevelSpan): boolean {
    const ranges = span.lastIndex - span.firstIndex + 1;
    return span.firstIndex === this.#o.firstIndex && ranges % this.#o.epochRanges === 0;
  }
}

function heights(span: LevelSpan): { low: number; high: number } {
  return { low: span.firstIndex * span.rangeSize, high: (span.lastIndex + 1) * span.rangeSize - 1 };
}

function* mapIter<T, U>(items: Iterable<T>, f: (item: T) => U): Generator<U> {
  for (const item of items) yield f(item);
}

/** A database row as its stored 104-byte record (proto/range-format.md §Transparent address index). */
export function addressRowBytes(r: AddressRow): Uint8Array {
  return encodeAddressRecord({
    addressKey: r.key,
    kind: r.kind === 0 ? RECEIVED : SPENT,
    height: r.height,
    txIndex: r.txIndex,
    index: r.n,
    value: BigInt(r.value),
    wireTxid: r.wireTxid,
    offset: r.offset,
    length: r.length,
    spent: r.kind === 1 ? { height: r.outHeight, txIndex: r.outTxIndex, index: r.outN } : undefined,
  });
}
