import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CHAIN_NAMES, chainNameOf } from "./networks.ts";

const root = fileURLToPath(new URL("../", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".test.ts"))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

describe("the network-name table", () => {
  it("maps lightedge's names to the chain names reported, passing unknown store names through", () => {
    expect(CHAIN_NAMES).toEqual({ mainnet: "main", testnet: "test", regtest: "regtest" });
    expect(chainNameOf("testnet")).toBe("test");
    expect(chainNameOf("devnet-1")).toBe("devnet-1");
    expect(chainNameOf("toString")).toBe("toString");
  });

  it("is the only copy in origin/ and proto/ (one implementation of each thing)", () => {
    const copies = [...sources("origin"), ...sources("proto")].filter((f) =>
      /mainnet:\s*"main"/.test(readFileSync(join(root, f), "utf8")),
    );
    expect(copies).toEqual(["proto/networks.ts"]);
  });
});
