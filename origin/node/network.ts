import type { NetworkName } from "../../proto/networks.ts";
import { NodeRpcError } from "./errors.ts";

export type { NetworkName };

/**
 * Genesis block hashes (display order, `getblockhash 0`). Each was checked against the raw genesis
 * block in the chain corpus (test/corpus/chain/blocks/{mainnet,testnet,regtest}/0.hex, SHA256d of
 * the header) and against zebra's checkpoint lists (height 0). The regtest one is zebra's
 * `REGTEST_GENESIS_HASH` and zcashd's `CRegTestParams` `hashGenesisBlock`: both nodes share it.
 */
export const GENESIS_HASHES: Readonly<Record<NetworkName, string>> = Object.freeze({
  mainnet: "00040fe8ec8471911baa1db1266ea15dd06b4a8a5c453883c000b031973dce08",
  testnet: "05a60a92d99d85997cce3b87616c089f6124d7342af37106edc76126334a2c38",
  regtest: "029f11d80ef9765602235e1bc9727e3eb6ba20839319f761fee920d63401e327",
});

/** What identifies a node's chain. */
export interface ChainIdentity {
  /** `getblockchaininfo.chain`: "main" | "test" | "regtest" (zebrad on Regtest says "test"). */
  chain: string;
  /** `getblockhash 0` (display hex), or undefined when the node does not serve height 0. */
  genesisHash: string | undefined;
  /** `getinfo.subversion` ("/Zebra:…/", "/MagicBean:…/", lightedge's dev node "…lightedge-devnode…/"). */
  subversion: string;
}

/**
 * Which network a node follows, from its own chain:
 * - the mainnet or testnet genesis hash decides mainnet / testnet, whatever the chain name says;
 * - the real regtest genesis (zebrad and zcashd Regtest) is regtest;
 * - any other genesis is a private chain: regtest when the node names it "regtest" (zcashd, the
 *   dev node's generated chains) or "test" (zebrad Regtest with a non-default genesis), never
 *   mainnet or testnet, so a made-up chain can not pass for a public one;
 * - without a genesis (only lightedge's dev node replaying a corpus run that starts above 0 does
 *   that; real nodes always serve block 0), the chain name is taken, and only from the dev node.
 * Anything else is refused with a message naming what the node reported.
 */
export function identifyNetwork(id: ChainIdentity): NetworkName {
  const genesis = id.genesisHash?.toLowerCase();
  if (genesis === GENESIS_HASHES.mainnet) return "mainnet";
  if (genesis === GENESIS_HASHES.testnet) return "testnet";
  if (genesis === GENESIS_HASHES.regtest) return "regtest";
  if (genesis !== undefined) {
    if (id.chain === "regtest" || id.chain === "test") return "regtest";
    throw unknownNetwork(
      `node chain "${id.chain}" has genesis block ${genesis}, which is not ${id.chain === "main" ? "mainnet's" : "a known network's"}`,
    );
  }
  const byName: Record<string, NetworkName> = { main: "mainnet", test: "testnet", regtest: "regtest" };
  if (/lightedge-devnode/.test(id.subversion) && byName[id.chain] !== undefined) return byName[id.chain]!;
  throw unknownNetwork(
    `node chain "${id.chain}" does not serve its genesis block (getblockhash 0), so its network can not be verified`,
  );
}

/**
 * Whether a chain whose block 0 has this hash can be `network` (the rule of identifyNetwork):
 * mainnet and testnet need their genesis; regtest takes any other (generated dev chains included).
 */
export function genesisMatches(network: string, genesisHash: string): boolean {
  const hash = genesisHash.toLowerCase();
  if (network === "mainnet" || network === "testnet") return hash === GENESIS_HASHES[network];
  return hash !== GENESIS_HASHES.mainnet && hash !== GENESIS_HASHES.testnet;
}

function unknownNetwork(message: string): NodeRpcError {
  return new NodeRpcError("bad-request", "node-client.info", message, { failure: "wrong-network" });
}
