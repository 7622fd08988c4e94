import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevNode, type DevNode, knownScripts, scriptAddress } from "../../origin/devnode/index.ts";
import { hasZebrad, startZebrad, type Zebrad } from "../support/zebrad.ts";
import { ACCEPTED_DIFFERENCES } from "./accepted-differences.ts";
import { type Call, diffShapes, shapeOf } from "./shapes.ts";

// Both nodes hold a chain of the same length; every request below is sent to both, as lightedge
// (and lightwalletd) send it.
const BLOCKS = 110;

type Answer = { result: unknown } | { error: { code: number; message: string } };

async function call(url: string, method: string, params: unknown[]): Promise<Answer> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
  return body.error ? { error: body.error } : { result: body.result };
}

/** What is compared: the result's shape, or the error code (messages differ in wording only). */
function comparable(a: Answer): unknown {
  return "error" in a
    ? { object: { error: `code ${a.error.code}` } }
    : { object: { result: shapeOf(a.result) } };
}

describe.skipIf(!hasZebrad)("the dev node answers every JSON-RPC method it implements as zebrad does", () => {
  let zebrad: Zebrad;
  let dev: DevNode;
  const calls: Call[] = [];

  beforeAll(async () => {
    [zebrad, dev] = await Promise.all([
      startZebrad(),
      createDevNode({ synthetic: { blocks: BLOCKS + 1, seed: "parity" }, network: "regtest" }),
    ]);
    await Promise.all([zebrad.generate(BLOCKS), dev.ready]);
    const h = 100;
    const [zHash, dHash] = await Promise.all([zebrad.rpc<string>("getblockhash", [h]), dev.chain.hashAt(h)]);
    const zBlock = await zebrad.rpc<{ tx: string[] }>("getblock", [zHash, 1]);
    const dBlock = (await call(dev.url, "getblock", [dHash, 1])) as { result: { tx: string[] } };
    const zAddress = zebrad.minerAddress;
    const dAddress = scriptAddress(knownScripts()[0]!, "regtest")!;
    const both = (name: string, method: string, z: unknown[], d: unknown[] = z) =>
      calls.push({ name, method, zebrad: z, devnode: d });
    both("getinfo", "getinfo", []);
    both("getblockchaininfo", "getblockchaininfo", []);
    both("getbestblockhash", "getbestblockhash", []);
    both("getblockcount", "getblockcount", []);
    both("getblockhash", "getblockhash", [h]);
    both("getblockhash past the tip", "getblockhash", [BLOCKS + 50]);
    both("getblock 0 (raw)", "getblock", [String(h), 0]);
    both("getblock 1 by height", "getblock", [String(h), 1]);
    both("getblock 1 by hash", "getblock", [zHash, 1], [dHash, 1]);
    both("getblock 2", "getblock", [String(h), 2]);
    both("getblock past the tip", "getblock", [String(BLOCKS + 50), 1]);
    both("z_gettreestate", "z_gettreestate", [String(h)]);
    both("z_gettreestate genesis", "z_gettreestate", ["0"]);
    both("z_getsubtreesbyindex sapling", "z_getsubtreesbyindex", ["sapling", 0]);
    both("z_getsubtreesbyindex orchard", "z_getsubtreesbyindex", ["orchard", 0, 1]);
    both("getrawtransaction 0", "getrawtransaction", [zBlock.tx[0], 0], [dBlock.result.tx[0], 0]);
    both("getrawtransaction 1", "getrawtransaction", [zBlock.tx[0], 1], [dBlock.result.tx[0], 1]);
    both("getrawtransaction unknown", "getrawtransaction", ["ab".repeat(32), 1]);
    both("sendrawtransaction garbage", "sendrawtransaction", ["00"]);
    both("getrawmempool", "getrawmempool", []);
    const range = (a: string) => [{ addresses: [a], start: 1, end: BLOCKS }];
    both("getaddresstxids", "getaddresstxids", range(zAddress), range(dAddress));
    both("getaddressbalance", "getaddressbalance", [{ addresses: [zAddress] }], [{ addresses: [dAddress] }]);
    both("getaddressutxos", "getaddressutxos", [{ addresses: [zAddress] }], [{ addresses: [dAddress] }]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([zebrad?.stop(), dev?.close()]);
  }, 60_000);

  it("every answer has zebrad's fields and types, except the documented differences", async () => {
    const found: Record<string, string[]> = {};
    for (const c of calls) {
      const [z, d] = await Promise.all([
        call(zebrad.url, c.method, c.zebrad),
        call(dev.url, c.method, c.devnode),
      ]);
      const differences = diffShapes(comparable(z), comparable(d));
      if (differences.length > 0) found[c.name] = differences;
    }
    // Every difference is listed (with its reason) in accepted-differences.ts and the README;
    // a new one, or one that went away, fails here so the list stays true.
    expect(found).toEqual(ACCEPTED_DIFFERENCES);
  });
});
