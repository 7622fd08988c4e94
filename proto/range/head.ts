import { displayHex } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import { type HeadHistory, isHeadHistory } from "../history/layout.ts";
import { type HeadBundles, isHeadBundles } from "./bundles.ts";
import { type HeadHashIndex, isHeadHashIndex } from "./hash-index-layout.ts";
import { assertNetworkName, assertRangeSize, FORMAT_VERSION } from "./keys.ts";
import type { RangeMeta } from "./types.ts";

/**
 * The head object (`v1/<network>/head.json`): the one mutable object per network. JSON because it
 * is small, read once per second at most, and worth reading by eye. Written only after every
 * object it refers to is durable (proto/range-format.md §Head).
 */
export interface HeadObject {
  format: "lightedge-head";
  version: number;
  network: string;
  rangeSize: number;
  /** First height of the first sealed range (a multiple of rangeSize). */
  firstHeight: number;
  /** Sealed ranges, contiguous from firstHeight. */
  rangeCount: number;
  /** Last sealed block; null while rangeCount is 0. */
  tip: { height: number; displayHash: string; time: number } | null;
  /** ISO 8601 time the head was written (staleness of `lightdInfo`). */
  updatedAt: string;
  /** What GetLightdInfo needs from the node, as of updatedAt (LightdInfo field names). */
  lightdInfo: HeadLightdInfo;
  /**
   * Present when the block-hash index objects of exactly these ranges are stored (written before
   * the head, like the ranges); absent in heads written before the index existed.
   */
  hashIndex?: HeadHashIndex;
  /**
   * Present when every range's raw-block object and transaction table and the transaction and
   * address index levels are stored (proto/history/layout.ts); absent in heads written before
   * them or while they are backfilled.
   */
  history?: HeadHistory;
  /**
   * Present when range bundles are stored (proto/range/bundles.ts): which ones. Absent in heads
   * written before bundles existed; readers then read range by range.
   */
  bundles?: HeadBundles;
}

export interface HeadLightdInfo {
  chainName: string;
  saplingActivationHeight: number;
  consensusBranchId: string;
  /** The node's tip when the head was written (above the sealed tip). */
  blockHeight: number;
  estimatedHeight: number;
  upgradeName: string;
  upgradeHeight: number;
  zcashdBuild: string;
  zcashdSubversion: string;
}

const WHERE = "range-head";

function corrupt(message: string): LightedgeError {
  return new LightedgeError("corrupt", WHERE, `head object: ${message}`);
}

export function encodeHead(head: HeadObject): Uint8Array {
  validateHead(head, (m) => new LightedgeError("internal", WHERE, `refusing to write head: ${m}`));
  return new TextEncoder().encode(`${JSON.stringify(head, null, 2)}\n`);
}

/** Parses and validates; anything unreadable or inconsistent is "corrupt". Unknown fields are kept. */
export function decodeHead(bytes: Uint8Array): HeadObject {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (cause) {
    throw new LightedgeError("corrupt", WHERE, "head object: not UTF-8 JSON", { cause });
  }
  validateHead(value, corrupt);
  return value;
}

type Fail = (message: string) => LightedgeError;

function validateHead(value: unknown, fail: Fail): asserts value is HeadObject {
  const h = value as HeadObject;
  if (typeof h !== "object" || h === null || h.format !== "lightedge-head")
    throw fail("not a lightedge head");
  if (h.version !== FORMAT_VERSION) throw fail(`unsupported format version ${String(h.version)}`);
  try {
    assertNetworkName(h.network);
    assertRangeSize(h.rangeSize);
  } catch {
    throw fail("bad network or range size");
  }
  if (!isU32(h.firstHeight) || h.firstHeight % h.rangeSize !== 0)
    throw fail("firstHeight is not a range boundary");
  if (!isU32(h.rangeCount)) throw fail("bad rangeCount");
  validateTip(h, fail);
  if (typeof h.updatedAt !== "string") throw fail("bad updatedAt");
  validateLightdInfo(h.lightdInfo, fail);
  if (h.hashIndex !== undefined && !isHeadHashIndex(h.hashIndex)) throw fail("bad hashIndex");
  if (h.history !== undefined && !isHeadHistory(h.history, h)) throw fail("bad history");
  if (h.bundles !== undefined && !isHeadBundles(h.bundles, h)) throw fail("bad bundles");
}

function validateTip(h: HeadObject, fail: Fail): void {
  if (h.rangeCount === 0) {
    if (h.tip !== null) throw fail("a tip without sealed ranges");
    return;
  }
  const t = h.tip;
  if (t === null || typeof t !== "object") throw fail("sealed ranges without a tip");
  if (t.height !== h.firstHeight + h.rangeCount * h.rangeSize - 1) {
    throw fail(`tip ${t.height} is not the last height of ${h.rangeCount} ranges from ${h.firstHeight}`);
  }
  if (typeof t.displayHash !== "string" || !/^[0-9a-f]{64}$/.test(t.displayHash)) throw fail("bad tip hash");
  if (!isU32(t.time)) throw fail("bad tip time");
}

const STRINGS = ["chainName", "consensusBranchId", "upgradeName", "zcashdBuild", "zcashdSubversion"] as const;
const NUMBERS = ["saplingActivationHeight", "blockHeight", "estimatedHeight", "upgradeHeight"] as const;

function validateLightdInfo(info: HeadLightdInfo, fail: Fail): void {
  if (typeof info !== "object" || info === null) throw fail("missing lightdInfo");
  for (const key of STRINGS)
    if (typeof info[key] !== "string") throw fail(`lightdInfo.${key} is not a string`);
  for (const key of NUMBERS) if (!isU32(info[key])) throw fail(`lightdInfo.${key} is not a height`);
}

function isU32(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 0xffff_ffff;
}

/** Index of the last sealed range, or -1 when none. */
export function lastRangeIndex(head: HeadObject): number {
  return head.firstHeight / head.rangeSize + head.rangeCount - 1;
}

/**
 * A head that disagrees with its last range (different tip hash, size or network) must not be
 * served: it would pair one chain's tip with another chain's blocks.
 */
export function assertHeadMatchesRange(head: HeadObject, lastMeta: RangeMeta): void {
  const tipHash = displayHex(lastMetaHash(lastMeta));
  if (
    head.tip === null ||
    lastMeta.network !== head.network ||
    lastMeta.rangeSize !== head.rangeSize ||
    lastMeta.lastHeight !== head.tip.height ||
    tipHash !== head.tip.displayHash
  ) {
    throw corrupt(
      `tip ${head.tip?.height}/${head.tip?.displayHash} disagrees with range ${lastMeta.index} (${tipHash})`,
    );
  }
}

function lastMetaHash(meta: RangeMeta): Uint8Array {
  const at = (meta.blockCount - 1) * meta.entryBytes;
  return meta.table.subarray(at, at + 32);
}
