import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_MINER_ADDRESS, regtestConfig } from "../support/zebrad.ts";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

describe("the README's Regtest recipe", () => {
  it("is the zebrad.toml the zebrad tests run (with the README's fixed ports)", () => {
    const section = readme.slice(
      readme.indexOf("### Against a real node"),
      readme.indexOf("### Browser wallets"),
    );
    const toml = /```toml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(toml).toBe(
      regtestConfig({
        rpcPort: 18232,
        p2pPort: 18233,
        stateDir: "/tmp/zebrad-regtest",
        minerAddress: DEFAULT_MINER_ADDRESS,
        nu5Height: 1,
      }),
    );
    expect(section).toContain("--node http://127.0.0.1:18232 --network regtest");
  });
});
