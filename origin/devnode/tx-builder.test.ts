import { describe, expect, it } from "vitest";
import { displayHex } from "../../proto/bytes.ts";
import { computeTxid, parseTransaction } from "../chain/index.ts";
import { blockRandom } from "./prng.ts";
import { syntheticBody } from "./synthetic-block.ts";
import { buildTxWithId, type TxShape } from "./tx-builder.ts";

const hex = (b: Uint8Array) => displayHex(b);

function shape(version: 4 | 5 | 6, o: Partial<TxShape>): TxShape {
  return {
    version,
    vin: [],
    vout: [],
    saplingSpends: 0,
    saplingOutputs: 0,
    orchardActions: 0,
    ironwoodActions: 0,
    lockTime: 1,
    expiryHeight: 100,
    ...o,
  };
}

describe("synthetic transaction builder", () => {
  it("gives every generated block's transactions the txid origin/chain computes", () => {
    let checked = 0;
    for (let h = 0; h < 400; h++) {
      const body = syntheticBody("txid-check", h, h % 3);
      body.txs.forEach((raw, i) => {
        expect(hex(body.wireTxids[i]!)).toBe(hex(computeTxid(raw, { strictV6: false })));
        checked++;
      });
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it("matches computeTxid for every pool mix, including spends, empty bundles and transparent-only", () => {
    const rand = blockRandom("shapes", 1, 0);
    const input = { wirePrevTxid: new Uint8Array(32).fill(7), index: 2, script: new Uint8Array(106) };
    const output = { value: 12_345, script: new Uint8Array(25).fill(1) };
    const cases: TxShape[] = [];
    for (const version of [4, 5, 6] as const)
      for (const spends of [0, 1, 3])
        for (const outputs of [0, 1, 2, 7])
          for (const actions of version === 4 ? [0] : [0, 1, 4])
            for (const transparent of [false, true])
              cases.push(
                shape(version, {
                  vin: transparent ? [input, input] : [],
                  vout: transparent ? [output] : [],
                  saplingSpends: spends,
                  saplingOutputs: outputs,
                  orchardActions: actions,
                  ironwoodActions: version === 6 ? actions + 1 : 0,
                }),
              );
    for (const s of cases) {
      const { raw, wireTxid } = buildTxWithId(s, rand);
      const parsed = parseTransaction(raw, { strictV6: false });
      expect(parsed.version).toBe(s.version);
      expect(parsed.sapling.outputs.length).toBe(s.saplingOutputs);
      for (const o of parsed.sapling.outputs) expect(o.cmu[31]! & 0xc0).toBe(0);
      expect(hex(wireTxid)).toBe(hex(parsed.wireTxid));
    }
  });

  it("draws distinct compact parts per output, so compact blocks stay random", () => {
    const { raw } = buildTxWithId(shape(5, { orchardActions: 8, saplingOutputs: 8 }), blockRandom("r", 1, 0));
    const tx = parseTransaction(raw);
    const keys = [...tx.sapling.outputs, ...tx.orchard!.actions].map((o) => hex(o.ephemeralKey));
    expect(new Set(keys).size).toBe(16);
    expect(new Set(tx.orchard!.actions.map((a) => hex(a.nullifier))).size).toBe(8);
  });
});
