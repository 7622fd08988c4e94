import { join } from "node:path";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWalletSystem, type WalletSystem } from "../support/wallet-system.ts";
import {
  type ChainFacts,
  describeDifferentialFinding,
  readChainFacts,
  runDifferentialFuzz,
} from "./fuzz-differential.ts";
import { describeObjectFinding, runObjectFuzz } from "./fuzz-objects.ts";
import { describeFinding, FUZZ_PROTOCOLS, runRequestFuzz } from "./fuzz-requests.ts";

/**
 * The edge is what browsers reach: the same seeded request fuzzer as the origin's
 * (fuzz-requests.test.ts), against the edge as `npm start` runs it — wrangler dev's workerd over
 * real sockets, reading the origin's sealed ranges from its store and proxying the tail and the
 * node's RPCs to it. workerd serves HTTP/1.1 only here, so native gRPC cases go over HTTP/1.1: the
 * edge must refuse them with an HTTP status (Workers cannot send trailers), never a reset.
 */
const CASES = 2000;
const OBJECT_CASES = 1500;
const DIFFERENTIAL_CASES = 600;
const BLOCKS = 60;
let system: WalletSystem;
let tip: number;

beforeAll(async () => {
  system = await startWalletSystem({
    chain: { synthetic: { blocks: BLOCKS, seed: "fuzz-edge" } },
    rangeSize: 10,
    sealDepth: 12,
  });
  tip = await system.settle(120_000);
  await system.control("mempool", { count: 3 });
}, 180_000);

afterAll(async () => {
  await system?.close();
});

describe("the edge under fuzzed requests (workerd, real sockets)", () => {
  it(`answers ${CASES} seeded malformed and valid requests with well-formed statuses: no crash, hang, reset or Internal`, async () => {
    const edge = system.servers.find((s) => s.name === "edge")!;
    const result = await runRequestFuzz({
      url: edge.url,
      cases: CASES,
      seed: 20261207,
      tip,
      concurrency: 4,
      protocols: FUZZ_PROTOCOLS,
      h2: false,
    });
    expect(result.findings.map(describeFinding).slice(0, 20)).toEqual([]);
    expect(result.answered).toBe(CASES);
    // Still serving afterwards, sealed ranges and tail alike.
    expect(Number((await system.client(edge).getLatestBlock({})).height)).toBe(tip);
    const blocks = [];
    for await (const b of system.client(edge).getBlockRange({
      start: { height: 0n },
      end: { height: BigInt(tip) },
    }))
      blocks.push(Number(b.height));
    expect(blocks).toEqual(Array.from({ length: tip + 1 }, (_, h) => h));
  }, 300_000);

  it(`answers ${OBJECT_CASES} seeded downloads of stored objects with the store's own bytes, ranges and conditionals included`, async () => {
    const edge = system.servers.find((s) => s.name === "edge")!;
    const result = await runObjectFuzz({
      url: edge.url,
      storeDir: join(system.all.dataDir, "store"),
      cases: OBJECT_CASES,
      seed: 20261207,
      concurrency: 4,
    });
    expect(result.findings.map(describeObjectFinding).slice(0, 20)).toEqual([]);
    expect(result.answered).toBe(OBJECT_CASES);
  }, 300_000);

  it(`answers ${DIFFERENTIAL_CASES} seeded valid reads as its origin does, message for message and code for code`, async () => {
    const edge = system.servers.find((s) => s.name === "edge")!;
    const origin = system.servers.find((s) => s.name === "origin")!;
    const chain: ChainFacts = await readChainFacts(system.client(origin), system.network);
    expect(chain.addresses.length, "the chain pays transparent addresses").toBeGreaterThan(0);
    const transports = {
      "gRPC-web": (baseUrl: string) => createGrpcWebTransport({ baseUrl, httpVersion: "1.1" }),
      "Connect (proto)": (baseUrl: string) =>
        createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: true }),
    };
    for (const [name, transport] of Object.entries(transports)) {
      const result = await runDifferentialFuzz({
        edge: transport(edge.url),
        reference: transport(origin.url),
        chain,
        cases: DIFFERENTIAL_CASES / 2,
        seed: 20261207,
        concurrency: 4,
      });
      expect(result.findings.map(describeDifferentialFinding).slice(0, 10), name).toEqual([]);
    }
  }, 300_000);
});
