/**
 * The parsed shape of a Zcash block. Byte fields are views into the raw block (no copies), in wire
 * (internal) byte order; `display*` helpers reverse them for RPC-style hex.
 */

/** Block header (Zcash protocol spec §7.6): 140 fixed bytes + compactSize + Equihash solution. */
export interface BlockHeader {
  version: number;
  wirePrevHash: Uint8Array;
  merkleRoot: Uint8Array;
  /** hashFinalSaplingRoot / hashLightClientRoot / hashBlockCommitments, by upgrade. */
  blockCommitments: Uint8Array;
  time: number;
  bits: number;
  nonce: Uint8Array;
  /** 1344 bytes on mainnet/testnet (n=200,k=9); 36 on regtest (n=48,k=5). */
  solution: Uint8Array;
  /** The whole serialized header (what the block hash covers). */
  raw: Uint8Array;
}

export interface TxIn {
  wirePrevoutTxid: Uint8Array;
  prevoutIndex: number;
  scriptSig: Uint8Array;
  sequence: number;
}

export interface TxOut {
  /** Zatoshis as the raw int64; kept as two halves so projections avoid BigInt. */
  valueLow: number;
  valueHigh: number;
  scriptPubKey: Uint8Array;
}

export interface SaplingSpend {
  cv: Uint8Array;
  /** Per-spend anchor (v4 only; v5/v6 share one anchor per bundle). */
  anchor: Uint8Array | null;
  nf: Uint8Array;
  rk: Uint8Array;
}

export interface SaplingOutput {
  cv: Uint8Array;
  cmu: Uint8Array;
  ephemeralKey: Uint8Array;
  /** 580 bytes. */
  encCiphertext: Uint8Array;
  outCiphertext: Uint8Array;
}

export interface SaplingBundle {
  spends: SaplingSpend[];
  outputs: SaplingOutput[];
  /** 8 raw bytes (int64 LE) or null when the bundle is empty (v5/v6 omit it). */
  valueBalance: Uint8Array | null;
  /** v5/v6 shared anchor (present when spends > 0). */
  anchor: Uint8Array | null;
}

/** An Orchard-shaped action (Orchard and Ironwood share the 820-byte encoding, ZIP 225/229). */
export interface ShieldedAction {
  cv: Uint8Array;
  nullifier: Uint8Array;
  rk: Uint8Array;
  cmx: Uint8Array;
  ephemeralKey: Uint8Array;
  encCiphertext: Uint8Array;
  outCiphertext: Uint8Array;
}

export interface ActionBundle {
  actions: ShieldedAction[];
  flags: number;
  /** 8 raw bytes (int64 LE). */
  valueBalance: Uint8Array;
  anchor: Uint8Array;
}

export interface ParsedTx {
  /** Position in the block (0 = coinbase). */
  index: number;
  version: number;
  overwintered: boolean;
  versionGroupId: number;
  /** v5/v6 only; 0 otherwise. */
  consensusBranchId: number;
  lockTime: number;
  expiryHeight: number;
  vin: TxIn[];
  vout: TxOut[];
  sapling: SaplingBundle;
  joinSplitCount: number;
  orchard: ActionBundle | null;
  /** v6 only (ZIP 229). */
  ironwood: ActionBundle | null;
  /** The transaction's bytes (a view into the block). */
  raw: Uint8Array;
  /** Offset of the transaction in the block (0 for a standalone parse). */
  offset: number;
  /** SHA256d (v1–v4) or ZIP 244 / ZIP 229 digest (v5/v6), internal byte order. */
  wireTxid: Uint8Array;
}

export interface ParsedBlock {
  header: BlockHeader;
  /** SHA256d of the header, internal byte order. */
  wireHash: Uint8Array;
  /** BIP34 height from the coinbase (0 for a genesis block). */
  height: number;
  txs: ParsedTx[];
  /** Total raw size in bytes. */
  size: number;
}

export type TreeSizes = { sapling: number; orchard: number; ironwood: number };

export interface ParseOptions {
  /** Require v6 group id 0xD884B698 (default true); false also accepts the 0xFFFFFFFF test vectors. */
  strictV6?: boolean;
  /** Test/fuzz hook: receives the byte offset of every element count read. */
  countSites?: number[];
}
