/**
 * Role interfaces over a Zcash node (zebrad or zcashd JSON-RPC). The JSON-RPC client
 * (`createNodeClient` in ./index.ts) implements all of them; tests and other backends may
 * implement only the role they need. Hashes and txids are display order (byte-reversed hex, as
 * RPC shows them) unless a name says `wire`. Values are zatoshi as safe integers.
 *
 * Errors are `LightedgeError`s: above-tip (height past the node's tip, node code −8), not-found
 * (unknown hash/txid, node code −5), unavailable (connection refused, timeout, HTTP 429/503, node
 * still syncing, auth failure), bad-request (node rejected the parameters), malformed (the node's
 * answer does not have the expected shape). See ./errors.ts for the node-specific subclass.
 */

/** The node's best block. */
export interface BlockTip {
  height: number;
  displayHash: string;
}

/** Note commitment tree sizes after a block (`getblock 1` → trees.*.size; absent means 0). */
export interface TreeSizes {
  sapling: number;
  orchard: number;
  ironwood: number;
}

/** One block: raw bytes (`getblock <hash> 0`) plus the metadata of `getblock <hash> 1`. */
export interface NodeBlock {
  raw: Uint8Array;
  height: number;
  displayHash: string;
  /** All zeros for the genesis block. */
  prevDisplayHash: string;
  treeSizes: TreeSizes;
  /** Block header time (Unix seconds). */
  time: number;
  /** Txids in block order, display hex (the parser need not compute them). */
  txids: string[];
}

/**
 * Blocks `from..to` as the node stores them, fetched by height (`getblock "<height>" 0` only), and
 * the node's own word on the last one (`getblock "<to>" 1`, in the same batch): its hash and tree
 * sizes. Nothing binds the raw blocks to one chain yet: the caller checks their linkage and that
 * the last hashes to `last.displayHash`, and derives the other blocks' tree sizes from it.
 */
export interface RawBlockRun {
  from: number;
  raws: Uint8Array[];
  last: { displayHash: string; treeSizes: TreeSizes };
}

/** Reads the chain. `block` fetches by hash so a reorg cannot slip between the two calls. */
export interface ChainSource {
  bestBlock(): Promise<BlockTip>;
  /** Display hash of the main-chain block at `height`; above-tip past the tip. */
  blockHash(height: number): Promise<string>;
  /** The block with this display hash; not-found when the node does not know it. */
  block(displayHash: string): Promise<NodeBlock>;
  /**
   * Main-chain blocks `from..to` inclusive (ascending), fetched in JSON-RPC batches where the node
   * allows. Hashes are resolved first, then every block is fetched by hash; callers still check
   * prevHash linkage (a reorg between the two steps shows up as a break, never as a mix).
   */
  blocks(from: number, to: number): Promise<NodeBlock[]>;
  /**
   * The same heights raw, for the indexer's sync: one verbose call per run instead of one per
   * block (zebrad spends ≈ 7× the CPU on `getblock 1` as on `getblock 0`, bench zebrad-index).
   */
  rawBlocks(from: number, to: number): Promise<RawBlockRun>;
}

/** A network upgrade as `getblockchaininfo` → upgrades lists it. */
export interface NetworkUpgrade {
  /** Consensus branch id, 8 hex digits (e.g. "76b809bb" for Sapling). */
  branchId: string;
  name: string;
  activationHeight: number;
  status: "active" | "pending" | "disabled" | string;
}

/** `getinfo` + `getblockchaininfo` essentials (for GetLightdInfo and start-up checks). */
export interface NodeInfo {
  /** "main" | "test" | "regtest" as the node names it (zebrad on Regtest says "test"). */
  chain: string;
  /** The network the node's chain is, known from its genesis block (network.ts). */
  network: "mainnet" | "testnet" | "regtest";
  /** What lightedge reports (GetLightdInfo.chainName, TreeState.network): "main" | "test" | "regtest". */
  chainName: string;
  /** `getblockhash 0`; undefined when the node does not serve height 0 (dev node corpus runs). */
  genesisHash?: string;
  blocks: number;
  bestBlockHash: string;
  estimatedHeight: number;
  upgrades: NetworkUpgrade[];
  saplingActivationHeight: number;
  /** consensus.chaintip / consensus.nextblock branch ids (8 hex digits). */
  consensus: { chaintip: string; nextblock: string };
  /** getinfo build (e.g. "v2.4.0") and subversion (e.g. "/Zebra:2.4.0/"). */
  build: string;
  subversion: string;
  /** True while the node is still far from the network tip (initial block download). */
  initialSync: boolean;
}

/**
 * `signal` (the methods serving uses): the caller's deadline or disconnect. When it fires, the
 * HTTP request to the node is aborted and no retry or backoff follows; the call rejects with the
 * signal's reason.
 */
export interface NodeInfoSource {
  info(signal?: AbortSignal): Promise<NodeInfo>;
}

/** getrawtransaction: the bytes, and the height (absent = mempool; -1 = known but off the main chain). */
export interface RawTransactionResult {
  raw: Uint8Array;
  height?: number;
}

/** sendrawtransaction: accepted (txid) or rejected by the node (its code and message). */
export type SendResult = { txid: string } | { rejected: { code: number; message: string } };

export interface TransactionGateway {
  /** not-found when the node does not know the txid. */
  rawTransaction(displayTxid: string, signal?: AbortSignal): Promise<RawTransactionResult>;
  /** Txids (display hex) of the main-chain block at `height`, in block order (`getblock <height> 1`). */
  blockTxids(height: number, signal?: AbortSignal): Promise<string[]>;
  /** Node rejections come back as values, not thrown (protocol.md: SendResponse carries them). */
  sendRawTransaction(raw: Uint8Array, signal?: AbortSignal): Promise<SendResult>;
  /** Display txids currently in the mempool. */
  rawMempool(signal?: AbortSignal): Promise<string[]>;
}

export interface AddressTxidsQuery {
  addresses: string[];
  start?: number;
  end?: number;
}

export interface AddressBalance {
  balance: number;
  received: number;
}

export interface AddressUtxo {
  address: string;
  displayTxid: string;
  outputIndex: number;
  /** scriptPubKey hex. */
  script: string;
  satoshis: number;
  height: number;
}

export interface AddressUtxosQuery {
  addresses: string[];
  startHeight?: number;
  maxEntries?: number;
}

export interface AddressIndex {
  addressTxids(query: AddressTxidsQuery, signal?: AbortSignal): Promise<string[]>;
  addressBalance(addresses: string[], signal?: AbortSignal): Promise<AddressBalance>;
  addressUtxos(query: AddressUtxosQuery, signal?: AbortSignal): Promise<AddressUtxo[]>;
}

/** One pool's part of z_gettreestate: `{}` when the pool has no tree yet. */
export interface PoolCommitments {
  finalRoot?: string;
  finalState?: string;
}

/** z_gettreestate result (zebrad shape; `ironwood` absent before NU6.3 on nodes without it). */
export interface TreeState {
  hash: string;
  height: number;
  time: number;
  sapling: { commitments: PoolCommitments; skipHash?: string };
  orchard: { commitments: PoolCommitments; skipHash?: string };
  ironwood?: { commitments: PoolCommitments; skipHash?: string };
}

export type ShieldedPool = "sapling" | "orchard" | "ironwood";

/** z_getsubtreesbyindex result. `root` is the node's hex; `end_height` the completing block. */
export interface Subtrees {
  pool: ShieldedPool;
  start_index: number;
  subtrees: { root: string; end_height: number }[];
}

export interface TreeStateSource {
  /** By height or display hash. */
  treeState(heightOrHash: number | string, signal?: AbortSignal): Promise<TreeState>;
  subtrees(pool: ShieldedPool, start: number, limit?: number, signal?: AbortSignal): Promise<Subtrees>;
}

/** Everything the JSON-RPC client offers. */
export interface NodeClient
  extends ChainSource,
    NodeInfoSource,
    TransactionGateway,
    AddressIndex,
    TreeStateSource {
  /** info(), refusing a node on the wrong network or (unless allowSyncing) one still syncing. */
  checkReady(options?: { allowSyncing?: boolean }): Promise<NodeInfo>;
  /** Releases sockets (keep-alive agent). */
  close(): void;
}

export interface NodeAuthUserPassword {
  user: string;
  password: string;
}

/** zebrad/zcashd cookie file: one line `__cookie__:<password>`, re-read on 401 (node restarts rotate it). */
export interface NodeAuthCookie {
  cookieFile: string;
}

export interface NodeClientConfig {
  url: string;
  auth?: NodeAuthUserPassword | NodeAuthCookie;
  /** Expected network: a node on another chain fails `checkNetwork` / first `info()` with bad-request. */
  network?: "mainnet" | "testnet" | "regtest";
  /** Per HTTP request (default 30 000). */
  timeoutMs?: number;
  /** Bound on concurrent HTTP requests (default 16). */
  maxInFlight?: number;
  /** Retries of transient failures (default 3) with exponential backoff from `backoffMs` (default 100). */
  retries?: number;
  backoffMs?: number;
  /** Use JSON-RPC batches for `blocks()` (default true; falls back to single calls if refused). */
  batch?: boolean;
  /** Max calls per batch (default 100). */
  batchSize?: number;
}
