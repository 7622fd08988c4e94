import { describe, expect, it } from "vitest";
import { nextPendingUpgrade } from "./upgrades.ts";

const u = (name: string, activationHeight: number, status: string) => ({ name, activationHeight, status });

describe("nextPendingUpgrade", () => {
  it("names nothing when no upgrade is pending (regtest: everything active at height 1)", () => {
    const regtest = ["Overwinter", "Sapling", "Blossom", "Heartwood", "Canopy", "NU5", "NU6"].map((n) =>
      u(n, 1, "active"),
    );
    expect(nextPendingUpgrade(regtest)).toEqual({ name: "", height: 0 });
    expect(nextPendingUpgrade([])).toEqual({ name: "", height: 0 });
  });

  it("names the pending upgrade with the lowest activation height, whatever the list order", () => {
    const list = [u("Canopy", 100, "active"), u("NU7", 900, "pending"), u("NU6", 500, "pending")];
    expect(nextPendingUpgrade(list)).toEqual({ name: "NU6", height: 500 });
    expect(nextPendingUpgrade([...list].reverse())).toEqual({ name: "NU6", height: 500 });
  });

  it("breaks a tie at one height toward the upgrade listed last (the newest)", () => {
    const list = [u("NU6", 700, "pending"), u("NU6.1", 700, "pending"), u("NU7", 800, "pending")];
    expect(nextPendingUpgrade(list)).toEqual({ name: "NU6.1", height: 700 });
  });

  it("ignores disabled upgrades", () => {
    expect(nextPendingUpgrade([u("ZFuture", 10, "disabled")])).toEqual({ name: "", height: 0 });
  });
});
