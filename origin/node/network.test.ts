import { describe, expect, it } from "vitest";
import { displayHex } from "../../proto/bytes.ts";
import { hasChain, missingChainMessage, readChainHex } from "../../test/support/chain.ts";
import { parseBlock } from "../chain/index.ts";
import { NodeRpcError } from "./errors.ts";
import { GENESIS_HASHES, genesisMatches, identifyNetwork } from "./network.ts";

const zebra = "/Zebra:7.0.0/";
const devnode = "/Zebra:0.1.0/lightedge-devnode-synthetic/";
const generated = "7c".repeat(32);

function refused(f: () => unknown): NodeRpcError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(NodeRpcError);
    expect((err as NodeRpcError).failure).toBe("wrong-network");
    return err as NodeRpcError;
  }
  throw new Error("expected a refusal");
}

describe("network from the node's chain", () => {
  it.skipIf(!hasChain)("the genesis constants are the corpus's real genesis blocks", () => {
    if (!hasChain) return console.warn(missingChainMessage);
    for (const network of ["mainnet", "testnet", "regtest"] as const) {
      const block = parseBlock(readChainHex(`blocks/${network}/0.hex`), { strictV6: false });
      expect(displayHex(block.wireHash)).toBe(GENESIS_HASHES[network]);
    }
  });

  it("mainnet and testnet are known only by their genesis block", () => {
    expect(identifyNetwork({ chain: "main", genesisHash: GENESIS_HASHES.mainnet, subversion: zebra })).toBe(
      "mainnet",
    );
    expect(identifyNetwork({ chain: "test", genesisHash: GENESIS_HASHES.testnet, subversion: zebra })).toBe(
      "testnet",
    );
    // A chain that calls itself main with another genesis is no mainnet.
    expect(
      refused(() => identifyNetwork({ chain: "main", genesisHash: generated, subversion: zebra })).message,
    ).toMatch(/not mainnet's/);
    // Names never make a private chain public: "test" with a generated genesis is a private chain.
    expect(identifyNetwork({ chain: "test", genesisHash: generated, subversion: zebra })).toBe("regtest");
  });

  it('zebrad Regtest (chain "test") and zcashd regtest share the regtest genesis; the dev node\'s generated genesis is regtest', () => {
    expect(identifyNetwork({ chain: "test", genesisHash: GENESIS_HASHES.regtest, subversion: zebra })).toBe(
      "regtest",
    );
    expect(
      identifyNetwork({
        chain: "regtest",
        genesisHash: GENESIS_HASHES.regtest,
        subversion: "/MagicBean:6.2.0/",
      }),
    ).toBe("regtest");
    expect(identifyNetwork({ chain: "regtest", genesisHash: generated, subversion: devnode })).toBe(
      "regtest",
    );
  });

  it("without a genesis block only the dev node's chain name is taken", () => {
    expect(
      identifyNetwork({
        chain: "main",
        genesisHash: undefined,
        subversion: "/Zebra:0.1.0/lightedge-devnode/",
      }),
    ).toBe("mainnet");
    expect(
      refused(() => identifyNetwork({ chain: "main", genesisHash: undefined, subversion: zebra })).message,
    ).toMatch(/does not serve its genesis block/);
    expect(() => identifyNetwork({ chain: "other", genesisHash: undefined, subversion: devnode })).toThrow(
      /network can not be verified/,
    );
    expect(() => identifyNetwork({ chain: "other", genesisHash: generated, subversion: zebra })).toThrow(
      /not a known network's/,
    );
  });

  it("a fetched block 0 matches a network by the same rule", () => {
    expect(genesisMatches("mainnet", GENESIS_HASHES.mainnet.toUpperCase())).toBe(true);
    expect(genesisMatches("mainnet", GENESIS_HASHES.regtest)).toBe(false);
    expect(genesisMatches("testnet", GENESIS_HASHES.testnet)).toBe(true);
    expect(genesisMatches("regtest", GENESIS_HASHES.regtest)).toBe(true);
    expect(genesisMatches("regtest", generated)).toBe(true);
    expect(genesisMatches("regtest", GENESIS_HASHES.mainnet)).toBe(false);
    expect(genesisMatches("regtest", GENESIS_HASHES.testnet)).toBe(false);
  });
});
