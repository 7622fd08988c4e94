/** A JSON-RPC error object as zebrad sends it (codes from zcashd's rpc/protocol.h, which zebrad reuses). */
export class RpcFault extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

export const faults = {
  /** zebrad getblock past the tip or unknown hash: −8 "Block not found". */
  blockNotFound: () => new RpcFault(-8, "Block not found"),
  /** zebrad getblockhash past the tip. */
  aboveTip: () => new RpcFault(-32602, "Provided index is greater than the current tip"),
  txNotFound: () => new RpcFault(-5, "Transaction not found in mempool or best chain"),
  invalidParams: (why: string) => new RpcFault(-32602, why),
  methodNotFound: (m: string) => new RpcFault(-32601, `Method not found: ${m}`),
};
