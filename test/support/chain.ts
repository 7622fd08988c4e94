import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The real-chain corpus: public mainnet/testnet data kept in the repo under test/corpus/chain
 * (provenance, per file, in its README.md and manifest.json), so a fresh clone tests itself.
 * LIGHTEDGE_CHAIN_DIR points the tests at another copy of the same layout.
 */
export const chainDir = resolve(process.env.LIGHTEDGE_CHAIN_DIR ?? join(repoRoot, "test/corpus/chain"));

/** True when the corpus is present. */
export const hasChain = existsSync(join(chainDir, "index.json"));

/** Printed once by tests that skip for lack of the corpus; in CI the corpus is required. */
export const missingChainMessage = `real-chain corpus not found at ${chainDir} (set LIGHTEDGE_CHAIN_DIR); tests that need it are skipped`;

if (!hasChain) {
  if (process.env.CI) throw new Error(`CI requires the real-chain corpus: ${missingChainMessage}`);
  console.warn(`\n*** ${missingChainMessage} ***\n`);
}

/** Reads a corpus file relative to the chain dir. */
export function readChainFile(relative: string): Buffer {
  return readFileSync(join(chainDir, relative));
}

/** Reads a corpus .hex file as bytes. */
export function readChainHex(relative: string): Uint8Array {
  return Uint8Array.from(Buffer.from(readChainFile(relative).toString("utf8").trim(), "hex"));
}

export interface CorpusBlock {
  network: "mainnet" | "testnet" | "regtest";
  height: number;
  hash: string;
  prevHash: string;
  file: string;
  run: string;
  merkleRoot: string;
  txids: string[];
  time: number;
  txCount: number;
}

export interface CorpusRun {
  id: string;
  network: string;
  from: number;
  to: number;
  count: number;
  consecutive: boolean;
}

interface CorpusIndex {
  blocks: CorpusBlock[];
  runs: CorpusRun[];
}

let index: CorpusIndex | undefined;

/** index.json of the corpus (hashes in display order). */
export function corpusIndex(): CorpusIndex {
  index ??= JSON.parse(readChainFile("index.json").toString("utf8")) as CorpusIndex;
  return index;
}
