import { type HashIndexLevel, headLevelSpans, shardBitsFor } from "../range/hash-index-layout.ts";
import type { HeadObject } from "../range/head.ts";
import type { LevelSpan } from "../range/keys.ts";

/**
 * Which node-free history objects a head names (proto/range-format.md §Node-free history, "Which
 * exist"): its `history` field, the levels of the transaction and address indexes, and how many
 * shards each is cut into. Pure; the codecs are beside it.
 */

/**
 * The shard key of an index item (at byte `at` of `bytes`): its first four bytes, big-endian. A
 * txid's or an address key's first bytes are uniform, so items spread evenly over shards.
 */
export function itemKey32(bytes: Uint8Array, at = 0): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

/** Version of the history objects and of the head's `history` field. */
export const HISTORY_VERSION = 1;

/** A transaction index level is cut so that a shard holds at most this many entries on average. */
export const TXID_SHARD_TARGET = 1024;
/** An address index level is cut so that a shard holds at most this many addresses on average. */
export const TADDR_SHARD_TARGET = 512;

/** What a head says of one index level: without these counts a reader could not tell its shards. */
export interface HeadHistoryLevel {
  /** Transaction index entries: the transactions of the level's ranges. */
  transactions: number;
  /** Distinct addresses with records in the level's ranges. */
  addresses: number;
}

/** The head field saying the history objects of its ranges exist. */
export interface HeadHistory {
  version: number;
  /** Ranges per epoch: the levels are the hash index's (§Hash index, Levels) with this epoch. */
  epochRanges: number;
  /** One per level the head names, base first. */
  levels: HeadHistoryLevel[];
}

/** One level of one history index: `count` entries (transactions) or addresses, in 2^bits shards. */
export interface HistoryIndexLevel extends HashIndexLevel {
  count: number;
}

/** One level: the same ranges in both indexes. */
export interface HistoryLevel {
  txid: HistoryIndexLevel;
  taddr: HistoryIndexLevel;
}

/** Shard bits of a transaction index level of `transactions` entries: least s ≤ 16 with E ≤ 1024·2^s. */
export function txidShardBits(transactions: number): number {
  return shardBitsFor(transactions, TXID_SHARD_TARGET);
}

/** Shard bits of an address index level of `addresses` addresses: least s ≤ 16 with A ≤ 512·2^s. */
export function taddrShardBits(addresses: number): number {
  return shardBitsFor(addresses, TADDR_SHARD_TARGET);
}

function indexLevel(span: LevelSpan, count: number, bits: number): HistoryIndexLevel {
  const { network, rangeSize, firstIndex, lastIndex } = span;
  return { network, rangeSize, firstIndex, lastIndex, bits, count };
}

/** The heights of a level's ranges, inclusive: every entry and record of the level is at one of them. */
export function levelHeights(level: LevelSpan): { low: number; high: number } {
  return { low: level.firstIndex * level.rangeSize, high: (level.lastIndex + 1) * level.rangeSize - 1 };
}

/** The transaction index level of `span` holding `transactions` entries. */
export function txIndexLevel(span: LevelSpan, transactions: number): HistoryIndexLevel {
  return indexLevel(span, transactions, txidShardBits(transactions));
}

/** The address index level of `span` holding `addresses` distinct addresses. */
export function addressIndexLevel(span: LevelSpan, addresses: number): HistoryIndexLevel {
  return indexLevel(span, addresses, taddrShardBits(addresses));
}

/**
 * The levels a head names, computed from the head alone as the hash index's are (base, then
 * recent). Undefined when the head has no history (written before it existed, or still being
 * backfilled) or one of a version this reader does not know: the reader then asks a node.
 */
export function headHistoryLevels(head: HeadObject): HistoryLevel[] | undefined {
  const history = head.history;
  if (history === undefined || history.version !== HISTORY_VERSION) return undefined;
  return headLevelSpans(head, history.epochRanges).map((span, k) => ({
    txid: txIndexLevel(span, history.levels[k]!.transactions),
    taddr: addressIndexLevel(span, history.levels[k]!.addresses),
  }));
}

type HeadRanges = Pick<HeadObject, "network" | "rangeSize" | "firstHeight" | "rangeCount">;

/**
 * Validates the head's `history` field (proto/range/head.ts calls it when the field is present):
 * any version ≥ 1 passes (a reader ignores versions it does not know); version 1 needs an epoch
 * size and one level entry per level the head names, each with at least one transaction per block
 * (every block has a coinbase).
 */
export function isHeadHistory(value: unknown, head: HeadRanges): value is HeadHistory {
  const v = value as HeadHistory;
  if (typeof v !== "object" || v === null || !Number.isInteger(v.version) || v.version < 1) return false;
  if (v.version !== HISTORY_VERSION) return true;
  if (!Number.isInteger(v.epochRanges) || v.epochRanges < 1 || v.epochRanges > 65_536) return false;
  const spans = headLevelSpans(head, v.epochRanges);
  return (
    Array.isArray(v.levels) &&
    v.levels.length === spans.length &&
    v.levels.every((level, k) => {
      const blocks = (spans[k]!.lastIndex - spans[k]!.firstIndex + 1) * head.rangeSize;
      return (
        typeof level === "object" &&
        level !== null &&
        Number.isSafeInteger(level.transactions) &&
        level.transactions >= blocks &&
        Number.isSafeInteger(level.addresses) &&
        level.addresses >= 0
      );
    })
  );
}
