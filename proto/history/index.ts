// Node-free history (spec: proto/range-format.md §Node-free history): raw blocks, transaction
// tables, the transaction and transparent-address indexes. Pure: no I/O, no node: imports,
// shared by the origin (writer) and the edge (reader).
export {
  ADDRESS_KEY_BYTES,
  addressKeyOfScript,
  addressKeyOfTaddress,
  P2PKH,
  P2SH,
  scriptOfAddressKey,
  taddressOfKey,
} from "./address.ts";
export { addressDirectoryKey, addressRecordsKey, rawBlocksKey, txIndexShardKey, txTableKey } from "./keys.ts";
export {
  addressIndexLevel,
  HEAD_HISTORY_VERSION,
  type HeadHistory,
  type HeadHistoryLevel,
  HISTORY_VERSION,
  type HistoryIndexLevel,
  type HistoryLevel,
  headHistoryLevels,
  historyCoveredRanges,
  historyIndexedTip,
  isHeadHistory,
  TADDR_SHARD_TARGET,
  TXID_SHARD_TARGET,
  taddrShardBits,
  txIndexLevel,
  txidShardBits,
} from "./layout.ts";
export type { LevelObject } from "./level-writer.ts";
export { blockOfFrame, encodeRawBlocks, rawBlocks, rawBlocksParts } from "./raw-object.ts";
export {
  type AddressDirectory,
  type AddressDirectoryEntry,
  addressIndexObjects,
  decodeAddressDirectory,
  decodeAddressRecords,
  encodeAddressIndexLevel,
  entryAt,
  findAddress,
  recordsSpan,
} from "./taddr-index.ts";
export {
  type AddressIndexSource,
  type AddressInLevel,
  type AddressLookup,
  addressBalance,
  addressDirectoryEntries,
  addressRecords,
} from "./taddr-lookup.ts";
export {
  type AddressRecord,
  compareRecordsAt,
  decodeAddressRecord,
  encodeAddressRecord,
  type OutputPosition,
  RECEIVED,
  RECORD_BYTES,
  SPENT,
} from "./taddr-record.ts";
export {
  decodeTxEntry,
  decodeTxShard,
  encodeTxEntry,
  encodeTxIndexLevel,
  findTx,
  lookupTx,
  TX_ENTRY_BYTES,
  type TxIndexEntry,
  type TxIndexSource,
  type TxLocation,
  type TxLookup,
  type TxShard,
  txIndexObjects,
} from "./tx-index.ts";
export {
  type BlockTransaction,
  blockFrameSpan,
  blockTxRange,
  decodeTxTable,
  encodeTxTable,
  type RangeId,
  type TxTable,
  type TxTableBlock,
  txSpan,
  txWireId,
} from "./tx-table.ts";
