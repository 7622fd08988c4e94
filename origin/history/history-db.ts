import { DatabaseSync, type StatementSync } from "node:sqlite";
import { compareBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import type { TxIndexEntry } from "../../proto/history/index.ts";
import type { BlockHistory } from "./block-history.ts";

/**
 * The origin's history state (proto/range-format.md §Node-free history, Writing): every sealed
 * transaction's place in its raw-block object, and every address record — outputs paying a
 * t-address, and the inputs that spend them. Kind-1 records need the spent output's address and
 * value, which only the chain so far knows: this database is where the origin looks them up, and
 * the index levels are read out of it sorted by key.
 *
 * Why SQLite (Node's built-in node:sqlite): at mainnet height the state is tens of millions of
 * rows (≈ 15 M transactions, ≈ 55 M address records) — far beyond the 1 GiB the origin may use in
 * memory — and needs keyed lookups (an outpoint per input), range deletes (rollback) and sorted
 * scans (index levels), each atomic per range. SQLite does all four from one file in the data
 * directory with a page cache of a few MB, needs no server or native add-on (node:sqlite ships
 * with Node ≥ 22.13), and its transactions make a crash leave whole ranges only. An LSM store
 * (LevelDB, RocksDB, LMDB) would need a native module and the sorting done by hand.
 *
 * Only sealed ranges are here, in height order: `applyRange` adds the next one, `rollbackAbove`
 * removes ranges a cut-back head no longer names. The tail stays in the indexer's memory.
 */

/** One address record (proto/range-format.md §Transparent address index). */
export interface AddressRow {
  key: Uint8Array;
  /** 0 received (an output), 1 spent (an input spending one). */
  kind: 0 | 1;
  height: number;
  txIndex: number;
  /** Output index (kind 0) or input index (kind 1). */
  n: number;
  /** Zatoshi; for kind 1 the spent output's value. */
  value: number;
  wireTxid: Uint8Array;
  offset: number;
  length: number;
  /** Kind 1: the spent output's height, transaction position and index (kind 0: zero). */
  outHeight: number;
  outTxIndex: number;
  outN: number;
}

/** A sealed output paying a t-address, as an input finds it by its outpoint. */
export interface SealedOutput {
  key: Uint8Array;
  value: number;
  height: number;
  txIndex: number;
  n: number;
}

/** Bytes of one frame header in a raw-block object (flag and length). */
const FRAME_HEADER = 5;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS txs (
  txid BLOB PRIMARY KEY, height INTEGER NOT NULL, idx INTEGER NOT NULL,
  offset INTEGER NOT NULL, length INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS txs_height ON txs (height);
CREATE TABLE IF NOT EXISTS records (
  key BLOB NOT NULL, height INTEGER NOT NULL, idx INTEGER NOT NULL, kind INTEGER NOT NULL,
  n INTEGER NOT NULL, value INTEGER NOT NULL, txid BLOB NOT NULL, offset INTEGER NOT NULL,
  length INTEGER NOT NULL, out_height INTEGER NOT NULL, out_idx INTEGER NOT NULL,
  out_n INTEGER NOT NULL,
  PRIMARY KEY (key, height, idx, kind, n)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS records_height ON records (height);
CREATE INDEX IF NOT EXISTS records_outpoint ON records (txid, n) WHERE kind = 0;
CREATE TABLE IF NOT EXISTS state (name TEXT PRIMARY KEY, value) WITHOUT ROWID;
`;

const RECORD_COLUMNS = "key, kind, height, idx, n, value, txid, offset, length, out_height, out_idx, out_n";
const RECORD_ORDER = "key, height, idx, kind, n";

export interface HistoryDbIdentity {
  network: string;
  rangeSize: number;
}

export class HistoryDb {
  readonly #db: DatabaseSync;
  readonly #insertTx: StatementSync;
  readonly #insertRecord: StatementSync;
  readonly #findOutput: StatementSync;
  readonly #setState: StatementSync;
  readonly #getState: StatementSync;

  /**
   * Opens (creating) the database at `path` (":memory:" for tests). A file written for another
   * network or range size is refused: its heights would mean other blocks.
   */
  constructor(path: string, identity: HistoryDbIdentity) {
    this.#db = new DatabaseSync(path);
    // WAL: readers (TailAddresses) never wait on a range being applied. synchronous=NORMAL may
    // lose the last ranges on power loss but never corrupts; the indexer re-applies what the
    // store's head names and the database lacks (appliedThrough), so durability comes from there.
    this.#db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    // SQLite's default page cache is 2 MB: indexing a 30,000-block dev chain made 888,467 pread and
    // 373,795 pwrite calls (strace -c) — outpoint lookups of every input, and each level's ORDER BY
    // spilling its sort to temp files. 64 MiB: 19,823 and 179,496, ≈ 1 s less system CPU (wall time
    // unchanged there: the main thread bounds it); 16 MiB, nearly as few (52,637 and 184,896) for a
    // quarter of the RSS. Sorts larger than the cache still spill to files (temp_store stays FILE),
    // so a level of millions of rows never sorts in memory.
    this.#db.exec("PRAGMA cache_size = -16384;");
    this.#db.exec(SCHEMA);
    this.#insertTx = this.#db.prepare("INSERT OR IGNORE INTO txs VALUES (?, ?, ?, ?, ?)");
    this.#insertRecord = this.#db.prepare(
      `INSERT INTO records (${RECORD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#findOutput = this.#db.prepare(
      "SELECT key, value, height, idx, n FROM records WHERE txid = ? AND n = ? AND kind = 0",
    );
    this.#setState = this.#db.prepare("INSERT OR REPLACE INTO state VALUES (?, ?)");
    this.#getState = this.#db.prepare("SELECT value FROM state WHERE name = ?");
    const stored = this.#state("identity");
    const wanted = `${identity.network}/${identity.rangeSize}`;
    if (stored === undefined) this.#setState.run("identity", wanted);
    else if (stored !== wanted)
      throw new LightedgeError(
        "bad-request",
        "history-db",
        `history database ${path} is for ${stored}, not ${wanted}: move it away to rebuild it`,
      );
  }

  /** Height of the last block applied, and its hash (wire order); undefined when empty. */
  applied(): { height: number; wireHash: Uint8Array } | undefined {
    const height = this.#state("appliedHeight");
    const hash = this.#state("appliedHash");
    if (typeof height !== "number" || !(hash instanceof Uint8Array)) return undefined;
    return { height, wireHash: hash };
  }

  /**
   * Adds the next sealed range (its blocks in height order, each with its history and hash):
   * its transactions, its outputs to t-addresses, and a spent record for every input that spends
   * one of them (earlier in the same range included). One transaction: a crash leaves the range
   * either applied whole or not at all.
   */
  applyRange(blocks: readonly { history: BlockHistory; wireHash: Uint8Array }[]): void {
    const first = blocks[0];
    if (first === undefined) return;
    const applied = this.applied();
    if (applied !== undefined && first.history.height !== applied.height + 1)
      throw new LightedgeError(
        "internal",
        "history-db",
        `history: range from ${first.history.height} does not follow the applied height ${applied.height}`,
      );
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      let frame = 0;
      for (const { history } of blocks) {
        this.#applyBlock(history, frame);
        frame += FRAME_HEADER + history.rawLength;
      }
      const last = blocks[blocks.length - 1]!;
      this.#setState.run("appliedHeight", last.history.height);
      this.#setState.run("appliedHash", last.wireHash);
      this.#db.exec("COMMIT");
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  #applyBlock(b: BlockHistory, frame: number): void {
    const at = (txIndex: number) => {
      const tx = b.txs[txIndex]!;
      return { txid: tx.wireTxid, offset: frame + FRAME_HEADER + tx.offset, length: tx.length };
    };
    b.txs.forEach((tx, idx) => {
      this.#insertTx.run(tx.wireTxid, b.height, idx, frame + FRAME_HEADER + tx.offset, tx.length);
    });
    // Outputs first: an input may spend an output of an earlier transaction of the same block.
    for (const out of b.outputs) {
      const tx = at(out.txIndex);
      this.#insertRecord.run(
        out.key,
        0,
        b.height,
        out.txIndex,
        out.n,
        out.value,
        tx.txid,
        tx.offset,
        tx.length,
        0,
        0,
        0,
      );
    }
    for (const input of b.inputs) {
      const spent = this.output(input.wirePrevTxid, input.prevN);
      // An input spending a script no t-address encodes (P2PK, multisig, …) belongs to no address.
      if (spent === undefined) continue;
      const tx = at(input.txIndex);
      this.#insertRecord.run(
        spent.key,
        1,
        b.height,
        input.txIndex,
        input.n,
        spent.value,
        tx.txid,
        tx.offset,
        tx.length,
        spent.height,
        spent.txIndex,
        spent.n,
      );
    }
  }

  /** The sealed output `wirePrevTxid:n` paying a t-address, or undefined. */
  output(wireTxid: Uint8Array, n: number): SealedOutput | undefined {
    const row = this.#findOutput.get(wireTxid, n) as
      | { key: Uint8Array; value: number; height: number; idx: number; n: number }
      | undefined;
    if (row === undefined) return undefined;
    return { key: row.key, value: row.value, height: row.height, txIndex: row.idx, n: row.n };
  }

  /** Removes every block above `height` (a head cut back before ranges the database holds). */
  rollbackAbove(height: number, wireHash: Uint8Array | undefined): void {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      this.#db.prepare("DELETE FROM txs WHERE height > ?").run(height);
      this.#db.prepare("DELETE FROM records WHERE height > ?").run(height);
      if (wireHash === undefined) {
        this.#db.prepare("DELETE FROM state WHERE name IN ('appliedHeight', 'appliedHash')").run();
      } else {
        this.#setState.run("appliedHeight", height);
        this.#setState.run("appliedHash", wireHash);
      }
      this.#db.exec("COMMIT");
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  /** Transactions with heights in `from..to`. */
  txCount(from: number, to: number): number {
    return (
      this.#db.prepare("SELECT count(*) AS c FROM txs WHERE height BETWEEN ? AND ?").get(from, to) as {
        c: number;
      }
    ).c;
  }

  /** Transaction index entries of heights `from..to`, sorted by txid (a level's order), streamed. */
  *txEntries(from: number, to: number): Generator<TxIndexEntry> {
    const st = this.#db.prepare(
      `SELECT txid, height, idx, offset, length FROM txs WHERE ${this.#heightTerm("txs", from)} ORDER BY txid`,
    );
    st.setReturnArrays(true);
    for (const r of st.iterate(from, to) as Iterable<[Uint8Array, number, number, number, number]>)
      yield { wireTxid: r[0], height: r[1], index: r[2], offset: r[3], length: r[4] };
  }

  /** Distinct addresses with records at heights `from..to`. */
  addressCount(from: number, to: number): number {
    return (
      this.#db
        .prepare("SELECT count(DISTINCT key) AS c FROM records WHERE height BETWEEN ? AND ?")
        .get(from, to) as { c: number }
    ).c;
  }

  /** Address records of heights `from..to` in a level's order (key, height, position, kind, index), streamed. */
  *addressRecords(from: number, to: number): Generator<AddressRow> {
    const st = this.#db.prepare(
      `SELECT ${RECORD_COLUMNS} FROM records WHERE ${this.#heightTerm("records", from)} ORDER BY ${RECORD_ORDER}`,
    );
    yield* rows(st, from, to);
  }

  /**
   * The height condition of a level's scan from `from`. Both tables' keys are a level's order
   * (txid; key, height, idx, kind, n). A span from the table's first height — the base level, every
   * whole epoch, rewritten every 64th range — reads the table in key order and drops the rows above
   * it (`+height` keeps SQLite off the height index): no sort, no key lookup per row. Any other
   * span — the recent level, a few ranges of many — seeks by height and sorts. On a 30,000-block
   * dev chain's database, the whole chain: 328 → 137 ms for 147,315 transactions, 127 → 69 ms for
   * 45,122 records; its last 4,000 blocks (13 % of the rows) the scan was still faster, but at
   * mainnet height a recent level is ≈ 1 % of the table.
   */
  #heightTerm(table: "txs" | "records", from: number): string {
    const first = (this.#db.prepare(`SELECT min(height) AS h FROM ${table}`).get() as { h: number | null }).h;
    return first !== null && from <= first ? "+height BETWEEN ? AND ?" : "height BETWEEN ? AND ?";
  }

  /** The records of some addresses above `height`, in a level's order (the origin's TailAddresses). */
  *recordsAbove(keys: readonly Uint8Array[], height: number): Generator<AddressRow> {
    const st = this.#db.prepare(
      `SELECT ${RECORD_COLUMNS} FROM records WHERE key = ? AND height > ? ORDER BY ${RECORD_ORDER}`,
    );
    const sorted = [...keys].sort(compareBytes);
    for (const key of sorted) yield* rows(st, key, height);
  }

  /** Closes the file (again: a no-op). */
  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  #state(name: string): unknown {
    return (this.#getState.get(name) as { value: unknown } | undefined)?.value;
  }
}

function* rows(st: StatementSync, ...params: (number | Uint8Array)[]): Generator<AddressRow> {
  st.setReturnArrays(true);
  type Row = [
    Uint8Array,
    number,
    number,
    number,
    number,
    number,
    Uint8Array,
    number,
    number,
    number,
    number,
    number,
  ];
  for (const r of st.iterate(...params) as Iterable<Row>)
    yield {
      key: r[0],
      kind: r[1] as 0 | 1,
      height: r[2],
      txIndex: r[3],
      n: r[4],
      value: r[5],
      wireTxid: r[6],
      offset: r[7],
      length: r[8],
      outHeight: r[9],
      outTxIndex: r[10],
      outN: r[11],
    };
}
