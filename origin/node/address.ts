import { arr, hash, int, obj, str } from "./parse.ts";
import type { AddressIndex, AddressUtxo } from "./ports.ts";
import type { RpcCaller } from "./rpc.ts";

/** The insight-explorer address RPCs (zebrad and zcashd with -insightexplorer/-lightwalletd). */
export function addressMethods(rpc: RpcCaller): AddressIndex {
  return {
    async addressTxids({ addresses, start, end }, signal) {
      const request: Record<string, unknown> = { addresses };
      if (start !== undefined) request.start = start;
      if (end !== undefined) request.end = end;
      const list = arr("getaddresstxids", await rpc.call("getaddresstxids", [request], signal), "result");
      return list.map((t) => hash("getaddresstxids", t, "txid"));
    },
    async addressBalance(addresses, signal) {
      const o = obj(
        "getaddressbalance",
        await rpc.call("getaddressbalance", [{ addresses }], signal),
        "result",
      );
      return {
        balance: int("getaddressbalance", o.balance, "balance"),
        received: o.received === undefined ? 0 : int("getaddressbalance", o.received, "received"),
      };
    },
    async addressUtxos({ addresses, startHeight, maxEntries }, signal) {
      const list = arr(
        "getaddressutxos",
        await rpc.call("getaddressutxos", [{ addresses }], signal),
        "result",
      );
      // Nodes take only `addresses`; lightwalletd filters startHeight/maxEntries itself (LWD PR#592).
      const utxos = list.map(parseUtxo).filter((u) => startHeight === undefined || u.height >= startHeight);
      return maxEntries ? utxos.slice(0, maxEntries) : utxos;
    },
  };
}

function parseUtxo(value: unknown): AddressUtxo {
  const m = "getaddressutxos";
  const o = obj(m, value, "utxo");
  return {
    address: str(m, o.address, "address"),
    displayTxid: hash(m, o.txid, "txid"),
    outputIndex: int(m, o.outputIndex, "outputIndex"),
    script: str(m, o.script, "script"),
    satoshis: int(m, o.satoshis, "satoshis"),
    height: int(m, o.height, "height"),
  };
}
