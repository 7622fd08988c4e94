// Raw Zcash blocks and transactions → parsed form, txids, and lightwallet CompactBlocks.
// Pure code: no I/O. Byte order is part of each name (wire = internal, display = reversed hex).
export { parseBlock } from "./block.ts";
export { type CompactOptions, toCompactBlock, toCompactTx } from "./compact.ts";
export type { Alloc } from "./encode-block.ts";
export { ChainParseError } from "./errors.ts";
export { merkleRoot } from "./merkle.ts";
export { type BlockProjections, compactBlockBytes, projectBlock } from "./project.ts";
export { computeTxid, parseTransaction } from "./transaction.ts";
export { treeGrowth, treeSizesBefore } from "./tree-growth.ts";
export type * from "./types.ts";
