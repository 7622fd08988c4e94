import { describe, expect, it } from "vitest";
import { addressKeyOfScript } from "../../proto/history/index.ts";
import { corpusIndex, hasChain, readChainHex } from "../../test/support/chain.ts";
import { parseBlock } from "../chain/index.ts";
import { blockHistory } from "./block-history.ts";
import { HistoryDb } from "./history-db.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** A consecutive corpus run with transparent traffic: testnet 1028400–1028600. */
function corpusRun() {
  const blocks = corpusIndex()
    .blocks.filter((b) => b.network === "testnet" && b.height >= 1028400 && b.height <= 1028600)
    .sort((a, b) => a.height - b.height);
  return blocks.map((b) => {
    const raw = readChainHex(b.file);
    const parsed = parseBlock(raw, { strictV6: false });
    return { raw, parsed, history: blockHistory(parsed, addressKeyOfScript), wireHash: parsed.wireHash };
  });
}

/**
 * What the database must hold, recomputed by brute force from the parsed blocks: every output
 * paying a t-address, and a spend for every input whose outpoint is one of them.
 */
function bruteForce(run: ReturnType<typeof corpusRun>) {
  const outputs = new Map<string, { key: string; value: number; height: number; idx: number; n: number }>();
  const records: string[] = [];
  for (const b of run) {
    for (const tx of b.parsed.txs) {
      tx.vout.forEach((o, n) => {
        const key = addressKeyOfScript(o.scriptPubKey);
        if (!key) return;
        const value = o.valueHigh * 2 ** 32 + o.valueLow;
        outputs.set(`${hex(tx.wireTxid)}:${n}`, {
          key: hex(key),
          value,
          height: b.parsed.height,
          idx: tx.index,
          n,
        });
        records.push(`${hex(key)} 0 ${b.parsed.height} ${tx.index} ${n} ${value}`);
      });
    }
    for (const tx of b.parsed.txs) {
      if (tx.index === 0) continue;
      tx.vin.forEach((i, n) => {
        const spent = outputs.get(`${hex(i.wirePrevoutTxid)}:${i.prevoutIndex}`);
        if (spent)
          records.push(
            `${spent.key} 1 ${b.parsed.height} ${tx.index} ${n} ${spent.value} ${spent.height}/${spent.idx}/${spent.n}`,
          );
      });
    }
  }
  return records.sort();
}

describe.skipIf(!hasChain)("HistoryDb", () => {
  const run = hasChain ? corpusRun() : [];
  const rangeSize = 10;
  /** Whole ranges of the run, as the sealer hands them over (the run starts on a boundary). */
  const ranges: (typeof run)[] = [];
  for (let k = 0; k + rangeSize <= run.length; k += rangeSize) ranges.push(run.slice(k, k + rangeSize));
  const sealed = ranges.flat();

  const fill = (db: HistoryDb, count = ranges.length) => {
    for (const r of ranges.slice(0, count)) db.applyRange(r);
  };
  const recordLines = (db: HistoryDb, from = 0, to = 2 ** 31) =>
    [...db.addressRecords(from, to)]
      .map(
        (r) =>
          `${hex(r.key)} ${r.kind} ${r.height} ${r.txIndex} ${r.n} ${r.value}` +
          (r.kind === 1 ? ` ${r.outHeight}/${r.outTxIndex}/${r.outN}` : ""),
      )
      .sort();

  it("holds every output to a t-address and every spend of one, as a brute-force scan finds them", () => {
    const db = new HistoryDb(":memory:", { network: "testnet", rangeSize });
    fill(db);
    const expected = bruteForce(sealed);
    expect(expected.some((l) => l.split(" ")[1] === "1")).toBe(true); // the run has spends
    expect(recordLines(db)).toEqual(expected);
    expect(db.applied()?.height).toBe(sealed[sealed.length - 1]!.parsed.height);
  });

  it("places every transaction at its bytes in the range's raw-block object", () => {
    const db = new HistoryDb(":memory:", { network: "testnet", rangeSize });
    fill(db, 2);
    const range = ranges[1]!;
    const object = Buffer.concat(
      range.flatMap((b) => {
        const header = Buffer.alloc(5);
        header.writeUInt32BE(b.raw.length, 1);
        return [header, Buffer.from(b.raw)];
      }),
    );
    const from = range[0]!.parsed.height;
    const to = range[range.length - 1]!.parsed.height;
    const entries = [...db.txEntries(from, to)];
    expect(entries.length).toBe(range.reduce((n, b) => n + b.parsed.txs.length, 0));
    expect(db.txCount(from, to)).toBe(entries.length);
    const txids = entries.map((e) => hex(e.wireTxid));
    expect(txids).toEqual([...txids].sort()); // a level's order
    for (const e of entries) {
      const block = range.find((b) => b.parsed.height === e.height)!;
      const tx = block.parsed.txs[e.index]!;
      expect(hex(tx.wireTxid)).toBe(hex(e.wireTxid));
      expect(hex(object.subarray(e.offset, e.offset + e.length))).toBe(hex(tx.raw));
    }
  });

  it("streams a level's records in (address, height, position, kind, index) order with its address count", () => {
    const db = new HistoryDb(":memory:", { network: "testnet", rangeSize });
    fill(db);
    const rows = [...db.addressRecords(1028410, 1028459)];
    const sortKey = (r: (typeof rows)[number]) =>
      `${hex(r.key)}|${String(r.height).padStart(10, "0")}|${String(r.txIndex).padStart(6, "0")}|${r.kind}|${String(r.n).padStart(6, "0")}`;
    expect(rows.map(sortKey)).toEqual(rows.map(sortKey).sort());
    expect(rows.every((r) => r.height >= 1028410 && r.height <= 1028459)).toBe(true);
    expect(db.addressCount(1028410, 1028459)).toBe(new Set(rows.map((r) => hex(r.key))).size);
  });

  it("streams a level from the first height (the table read in key order) as a sort of its rows would", () => {
    const db = new HistoryDb(":memory:", { network: "testnet", rangeSize });
    fill(db);
    // The first 3 ranges of the 5 applied: rows above the span must be left out.
    const from = ranges[0]![0]!.parsed.height;
    const to = ranges[2]![rangeSize - 1]!.parsed.height;
    const txids = [...db.txEntries(from, to)].map((e) => `${hex(e.wireTxid)} ${e.height} ${e.index}`);
    const expected = sealed
      .filter((b) => b.parsed.height <= to)
      .flatMap((b) => b.parsed.txs.map((tx) => `${hex(tx.wireTxid)} ${b.parsed.height} ${tx.index}`))
      .sort();
    expect(txids).toEqual(expected);
    const rows = [...db.addressRecords(from, to)];
    const sortKey = (r: (typeof rows)[number]) =>
      `${hex(r.key)}|${String(r.height).padStart(10, "0")}|${String(r.txIndex).padStart(6, "0")}|${r.kind}|${String(r.n).padStart(6, "0")}`;
    const all = [...db.addressRecords(0, 2 ** 31)];
    expect(all.some((r) => r.height > to)).toBe(true);
    expect(rows.map(sortKey)).toEqual(
      all
        .filter((r) => r.height <= to)
        .map(sortKey)
        .sort(),
    );
  });

  it("rolls back to a height and re-applies to the same state", () => {
    const db = new HistoryDb(":memory:", { network: "testnet", rangeSize });
    fill(db);
    const full = recordLines(db);
    const cut = ranges[4]!;
    const last = cut[cut.length - 1]!;
    db.rollbackAbove(last.parsed.height, last.wireHash);
    expect(db.applied()?.height).toBe(last.parsed.height);
    expect(recordLines(db).every((l) => Number(l.split(" ")[2]) <= last.parsed.height)).toBe(true);
    expect(db.txCount(last.parsed.height + 1, 2 ** 31)).toBe(0);
    for (const r of ranges.slice(5)) db.applyRange(r);
    expect(recordLines(db)).toEqual(full);
  });

  it("refuses a range that does not follow the applied height", () => {
    const db = new HistoryDb(":memory:", { network: "testnet", rangeSize });
    fill(db, 1);
    expect(() => db.applyRange(ranges[2]!)).toThrow(/does not follow/);
  });

  it("refuses a database written for another network or range size", () => {
    const dir = `${process.env.TMPDIR ?? "/tmp"}/lightedge-history-db-${process.pid}.sqlite`;
    new HistoryDb(dir, { network: "testnet", rangeSize }).close();
    expect(() => new HistoryDb(dir, { network: "mainnet", rangeSize })).toThrow(/is for testnet\/10/);
  });

  it("answers the records of some addresses above a height, and sealed outputs by outpoint", () => {
    const db = new HistoryDb(":memory:", { network: "testnet", rangeSize });
    fill(db);
    const all = [...db.addressRecords(0, 2 ** 31)];
    const some = [...new Set(all.map((r) => hex(r.key)))].slice(0, 3).map((k) => Buffer.from(k, "hex"));
    const above = [...db.recordsAbove(some, 1028450)];
    const wanted = all.filter((r) => r.height > 1028450 && some.some((k) => hex(k) === hex(r.key)));
    expect(above.map((r) => `${hex(r.key)}${r.height}${r.kind}${r.n}`)).toEqual(
      wanted.map((r) => `${hex(r.key)}${r.height}${r.kind}${r.n}`),
    );
    const output = all.find((r) => r.kind === 0)!;
    expect(db.output(output.wireTxid, output.n)).toMatchObject({
      value: output.value,
      height: output.height,
    });
    expect(db.output(new Uint8Array(32), 0)).toBeUndefined();
  });
});
