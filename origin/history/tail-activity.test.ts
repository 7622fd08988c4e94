import { describe, expect, it } from "vitest";
import { addressKeyOfScript } from "../../proto/history/index.ts";
import { corpusIndex, hasChain, readChainHex } from "../../test/support/chain.ts";
import { parseBlock } from "../chain/index.ts";
import { blockHistory } from "./block-history.ts";
import { type AddressRow, HistoryDb } from "./history-db.ts";
import { TailActivity, tailRecords } from "./tail-activity.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const line = (r: AddressRow) =>
  `${hex(r.key)} ${r.kind} ${r.height} ${r.txIndex} ${r.n} ${r.value} ${hex(r.wireTxid)} ${r.outHeight}/${r.outTxIndex}/${r.outN}`;

describe.skipIf(!hasChain)("tailRecords", () => {
  const run = hasChain
    ? corpusIndex()
        .blocks.filter((b) => b.network === "testnet" && b.height >= 1028400 && b.height < 1028600)
        .sort((a, b) => a.height - b.height)
        .map((b) => {
          const parsed = parseBlock(readChainHex(b.file), { strictV6: false });
          return { history: blockHistory(parsed, addressKeyOfScript), wireHash: parsed.wireHash };
        })
    : [];

  it("reports what sealing the tail would add, resolving spends of sealed and tail outputs", () => {
    const sealedCount = 40;
    // Everything sealed: the reference for the records above the sealed tip.
    const all = new HistoryDb(":memory:", { network: "testnet", rangeSize: 10 });
    for (let k = 0; k < run.length; k += 10) all.applyRange(run.slice(k, k + 10));
    // The first 100 blocks sealed, the rest a tail.
    const sealed = new HistoryDb(":memory:", { network: "testnet", rangeSize: 10 });
    for (let k = 0; k < sealedCount; k += 10) sealed.applyRange(run.slice(k, k + 10));
    const above = run[sealedCount - 1]!.history.height;
    const keys = [...new Map([...all.addressRecords(0, 2 ** 31)].map((r) => [hex(r.key), r.key])).values()];
    const expected = [...all.recordsAbove(keys, above)];
    expect(expected.some((r) => r.kind === 1 && r.outHeight <= above)).toBe(true); // tail spends sealed outputs
    expect(expected.some((r) => r.kind === 1 && r.outHeight > above)).toBe(true); // and tail outputs
    const got = tailRecords(
      run.slice(sealedCount).map((b) => b.history),
      keys,
      (txid, n) => sealed.output(txid, n),
    );
    expect(got.map(line)).toEqual(expected.map(line));
    expect(got.every((r) => r.offset === 0 && r.length === 0)).toBe(true);
  });

  it("reports only the addresses asked for", () => {
    const sealed = new HistoryDb(":memory:", { network: "testnet", rangeSize: 10 });
    const keys = new Set<string>();
    for (const b of run) for (const o of b.history.outputs) keys.add(hex(o.key));
    const one = Buffer.from([...keys][0]!, "hex");
    const got = tailRecords(
      run.map((b) => b.history),
      [one],
      (txid, n) => sealed.output(txid, n),
    );
    expect(got.length).toBeGreaterThan(0);
    expect(got.every((r) => hex(r.key) === hex(one))).toBe(true);
  });

  it("keeps each block's records: a later call resolves no input again and answers the same, a replaced block is computed afresh", () => {
    const sealedCount = 40;
    const sealed = new HistoryDb(":memory:", { network: "testnet", rangeSize: 10 });
    for (let k = 0; k < sealedCount; k += 10) sealed.applyRange(run.slice(k, k + 10));
    const tail = run.slice(sealedCount).map((b) => b.history);
    const keys = [...new Map(tail.flatMap((b) => b.outputs).map((o) => [hex(o.key), o.key])).values()];
    let lookups = 0;
    const output = (txid: Uint8Array, n: number) => {
      lookups++;
      return sealed.output(txid, n);
    };
    const activity = new TailActivity();
    const fresh = tailRecords(tail, keys, (txid, n) => sealed.output(txid, n)).map(line);
    expect(activity.records(tail, keys, output).map(line)).toEqual(fresh);
    expect(lookups).toBeGreaterThan(0);
    lookups = 0;
    expect(activity.records(tail, keys, output).map(line)).toEqual(fresh);
    expect(activity.records(tail, keys.slice(0, 3), output).map(line)).toEqual(
      fresh.filter((l) => keys.slice(0, 3).some((k) => l.startsWith(hex(k)))),
    );
    expect(lookups).toBe(0);
    // The last blocks replaced by equal copies (as a reorg replaces block objects): computed again,
    // with the outputs of the kept blocks below them still found.
    const replaced = [...tail.slice(0, -5), ...tail.slice(-5).map((b) => ({ ...b }))];
    expect(activity.records(replaced, keys, output).map(line)).toEqual(fresh);
    const copies = tail.map((b) => ({ ...b }));
    expect(activity.records(copies, keys, output).map(line)).toEqual(fresh);
    expect(lookups).toBeGreaterThan(0);
  });
});
