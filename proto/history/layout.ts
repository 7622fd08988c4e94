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

/** Version of the history objects (their headers), and of a head's `history` field as first written. */
export const HISTORY_VERSION = 1;

/**
 * Version of the head's `history` field that writers write: 2 adds `rangeCount`, so the index
 * levels may cover fewer ranges than the head while a writer catches up with its node
 * (proto/range-format.md §Node-free history, Which exist). Readers read 1 and 2; a reader that
 * knows only 1 ignores a 2 (no history) and asks a node, never reading levels for the wrong ranges.
 */
export const HEAD_HISTORY_VERSION = 2;

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
  /**
   * Version 2: the index levels cover the head's first `rangeCount` ranges (0 … the head's own
   * count); the raw-block objects and transaction tables still exist for every range. Version 1
   * has no such field: its levels cover every range of the head.
   */
  rangeCount?: number;
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

const knownVersion = (version: number) => version === HISTORY_VERSION || version === HEAD_HISTORY_VERSION;

/** The ranges a known `history` field's index levels cover: version 1 all of the head's. */
function coveredRanges(history: HeadHistory, head: HeadRanges): number {
  return history.version === HISTORY_VERSION ? head.rangeCount : history.rangeCount!;
}

/**
 * How many of the head's ranges, from its first, its history index levels cover; undefined when
 * it names no history this reader knows.
 */
export function historyCoveredRanges(head: HeadObject): number | undefined {
  const history = head.history;
  return history === undefined || !knownVersion(history.version) ? undefined : coveredRanges(history, head);
}

/**
 * The levels a head names, computed from the head alone as the hash index's are (base, then
 * recent) over the ranges its levels cover. Undefined when the head has no history (written
 * before it existed, or still being backfilled) or one of a version this reader does not know:
 * the reader then asks a node.
 */
export function headHistoryLevels(head: HeadObject): HistoryLevel[] | undefined {
  const history = head.history;
  if (history === undefined || !knownVersion(history.version)) return undefined;
  const covered = { ...head, rangeCount: coveredRanges(history, head) };
  return headLevelSpans(covered, history.epochRanges).map((span, k) => ({
    txid: txIndexLevel(span, history.levels[k]!.transactions),
    taddr: addressIndexLevel(span, history.levels[k]!.addresses),
  }));
}

/**
 * The last height the head's index levels cover (its first height − 1 when they cover no range):
 * above it a reader asks the origin (§Node-free history, "The tail"). Undefined when the head
 * names no history this reader knows.
 */
export function historyIndexedTip(head: HeadObject): number | undefined {
  const covered = historyCoveredRanges(head);
  // Sealed ranges are whole: with every range covered this is the sealed tip.
  return covered === undefined ? undefined : head.firstHeight + covered * head.rangeSize - 1;
}

type HeadRanges = Pick<HeadObject, "network" | "rangeSize" | "firstHeight" | "rangeCount">;

/**
 * Validates the head's `history` field (proto/range/head.ts calls it when the field is present):
 * any version ≥ 1 passes (a reader ignores versions it does not know); versions 1 and 2 need an
 * epoch size and one level entry per level the covered ranges make, each with at least one
 * transaction per block (every block has a coinbase); version 2 a `rangeCount` of 0 … the head's.
 */
export function isHeadHistory(value: unknown, head: HeadRanges): value is HeadHistory {
  const v = value as HeadHistory;
  if (typeof v !== "object" || v === null || !Number.isInteger(v.version) || v.version < 1) return false;
  if (!knownVersion(v.version)) return true;
  if (!Number.isInteger(v.epochRanges) || v.epochRanges < 1 || v.epochRanges > 65_536) return false;
  if (
    v.version === HEAD_HISTORY_VERSION &&
    (!Number.isInteger(v.rangeCount) || v.rangeCount! < 0 || v.rangeCount! > head.rangeCount)
  )
    return false;
  const spans = headLevelSpans({ ...head, rangeCount: coveredRanges(v, head) }, v.epochRanges);
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
