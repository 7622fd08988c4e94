import { describe, expect, it } from "vitest";
import { corpusIndex, hasChain, missingChainMessage, readChainHex } from "../../test/support/chain.ts";
import { createRng, createSubject, mutate, type Outcome, runCase } from "./fuzz.ts";

const CASES = 4000;

describe.skipIf(!hasChain)(
  `fuzzing real blocks (${hasChain ? "corpus present" : missingChainMessage})`,
  () => {
    it(`survives ${CASES} bit flips, byte sets, truncations, inflated counts and trailing bytes`, () => {
      // Small and mid-size blocks of every era keep this fast; bench/chain-fuzz.ts runs them all.
      const subjects = corpusIndex()
        .blocks.filter((b, i) => i % 3 === 0 || b.height === 2222000)
        .map((b) => createSubject(b.file, readChainHex(b.file)))
        .filter((s) => s.raw.length < 60_000);
      expect(subjects.some((s) => s.block.txs.some((t) => t.version === 5))).toBe(true);
      const rng = createRng(0x5eed);
      const outcomes: Record<Outcome, number> = { rejected: 0, same: 0, "changed-unchecked": 0 };
      const kinds = new Set<string>();
      for (let i = 0; i < CASES; i++) {
        const subject = subjects[Math.floor(rng() * subjects.length)]!;
        const m = mutate(subject, rng);
        kinds.add(m.kind);
        outcomes[runCase(subject, m)]++;
      }
      expect([...kinds].sort()).toEqual(["byte", "flip", "inflate", "trailing", "truncate"]);
      expect(outcomes.rejected).toBeGreaterThan(CASES / 2);
      expect(outcomes.rejected + outcomes.same + outcomes["changed-unchecked"]).toBe(CASES);
    });
  },
);
