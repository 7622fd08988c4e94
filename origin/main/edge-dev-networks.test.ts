import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { networksInStore } from "./edge-dev.ts";

describe("lightedge edge over a directory store", () => {
  let dir = "";
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("serves the networks whose head object the store holds, mainnet first", () => {
    dir = mkdtempSync(join(tmpdir(), "lightedge-edge-nets-"));
    expect(networksInStore(dir)).toEqual([]);
    for (const n of ["regtest", "testnet", "mainnet"]) {
      mkdirSync(join(dir, "v1", n), { recursive: true });
      if (n !== "testnet") writeFileSync(join(dir, "v1", n, "head.json"), "{}");
    }
    // testnet has ranges but no head yet: not served by default.
    expect(networksInStore(dir)).toEqual(["mainnet", "regtest"]);
  });
});
