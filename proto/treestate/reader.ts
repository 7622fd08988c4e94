import { LightedgeError } from "../errors.ts";
import { LoadCache, type LoadSharing } from "../lru.ts";
import { treeStateKey } from "./keys.ts";
import type { FinalStateStyle } from "./legacy-tree.ts";
import { type TreeStateView, treeStateFromParts } from "./range-codec.ts";
import {
  corrupt,
  decodeTreeStateEntry,
  readHeader,
  TREESTATE_ENTRY_BYTES,
  TREESTATE_HEADER_BYTES,
  type TreeStateHeader,
} from "./range-layout.ts";

/** Reads stored bytes (a byte range of them when given); null when the object is absent. */
export type ReadBytes = (
  key: string,
  range?: { offset: number; length: number },
) => Promise<Uint8Array | null>;

export interface TreeStateReaderOptions {
  read: ReadBytes;
  /** lightedge network name (a key segment, e.g. "mainnet"). */
  network: string;
  /** Header + table cache entries (≈ 48 kB each at 1,000 blocks per range). */
  cacheEntries?: number;
  /** How concurrent lookups of one table share its read (default in-flight; Workers: settled). */
  sharing?: LoadSharing;
  style?: FinalStateStyle;
}

/** Tree states from the stored per-range objects: the same logic at the origin and the edge. */
export interface TreeStateReader {
  /**
   * The tree state after `height` (sealed range `index` of `rangeSize` blocks), or undefined when
   * that range has no tree-state object yet (not backfilled: the caller falls back).
   */
  at(rangeSize: number, height: number): Promise<TreeStateView | undefined>;
  /**
   * Loads the table of `height`'s range (no record): a later `at` in that range is one read. Reads
   * nothing when the table is held; an absent object is not an error (nothing to load).
   */
  warm(rangeSize: number, height: number): Promise<void>;
}

interface Table {
  header: TreeStateHeader;
  bytes: Uint8Array;
}

/**
 * Two reads for a cold range (header + table in one ranged read, then the record) and one for a
 * warm one: the table is immutable, so it stays cached; records are fetched by their exact span
 * and checked against the table entry's digest.
 */
export function createTreeStateReader(o: TreeStateReaderOptions): TreeStateReader {
  const tables = new LoadCache<string, Table | undefined>({
    maxEntries: o.cacheEntries ?? 64,
    sharing: o.sharing ?? "in-flight",
  });

  const loadTable = async (key: string, rangeSize: number): Promise<Table | undefined> => {
    const bytes = await o.read(key, {
      offset: 0,
      length: TREESTATE_HEADER_BYTES + rangeSize * TREESTATE_ENTRY_BYTES,
    });
    if (bytes === null) return undefined;
    const header = readHeader(bytes);
    if (bytes.length < header.dataOffset) corrupt(`${key}: truncated table`);
    return { header, bytes: bytes.subarray(0, header.dataOffset) };
  };

  // Absent objects are not cached: the backfill may write them at any time.
  const table = (key: string, rangeSize: number): Promise<Table | undefined> =>
    tables.load(
      key,
      () => loadTable(key, rangeSize),
      (t) => t !== undefined,
    );

  const keyOf = (rangeSize: number, height: number): string => {
    if (!Number.isSafeInteger(height) || height < 0)
      throw new LightedgeError("bad-request", "treestate.reader", `invalid height ${height}`);
    return treeStateKey(o.network, rangeSize, Math.floor(height / rangeSize));
  };

  return {
    async warm(rangeSize, height) {
      await table(keyOf(rangeSize, height), rangeSize);
    },
    async at(rangeSize, height) {
      const key = keyOf(rangeSize, height);
      const t = await table(key, rangeSize);
      if (t === undefined) return undefined;
      const i = height - t.header.startHeight;
      if (i < 0 || i >= t.header.count) return undefined;
      const entry = decodeTreeStateEntry(t.bytes, TREESTATE_HEADER_BYTES + i * TREESTATE_ENTRY_BYTES);
      const end = entry.recordOffset + entry.recordLength;
      if (entry.recordOffset < t.header.dataOffset || end > t.header.dataOffset + t.header.dataLength)
        corrupt(`${key}: record outside the object`);
      const record = await o.read(key, { offset: entry.recordOffset, length: entry.recordLength });
      if (record === null || record.length !== entry.recordLength) corrupt(`${key}: record unreadable`);
      return treeStateFromParts(t.header.network, height, entry, record, o.style);
    },
  };
}
