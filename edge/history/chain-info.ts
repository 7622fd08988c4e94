/**
 * What the history fixture server (test/support/history-chains.ts) says of a chain with node-free
 * history: JSON, read by the edge's history tests in workerd (edge/history/testing.ts).
 */
export interface HistoryChainInfo {
  name: string;
  network: string;
  /** The chain process: `GET /objects/<key>` (the store's objects), `POST /reorg?depth=d`. */
  url: string;
  /** The origin (node-backed answers, History/TailAddresses), taking TEST_ORIGIN_SECRET. */
  origin: string;
  /** Every object of the store. */
  keys: string[];
  rangeSize: number;
  firstHeight: number;
  sealedTip: number;
  /** The origin's tip. */
  tip: number;
  /** Every transaction of the chain up to the tip: wire txid (hex), height, position. */
  txs: { txid: string; height: number; index: number }[];
  /** Every t-address any output of the chain pays (genesis excluded), sorted. */
  addresses: string[];
  /** The addresses paid by the most outputs, busiest first (at most 10). */
  busiest: string[];
}
