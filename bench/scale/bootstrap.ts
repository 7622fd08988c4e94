import { join } from "node:path";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { auditMetadata } from "../../origin/index/store-audit.ts";
import { openStore } from "../../origin/store/index.ts";
import { BlockIDSchema, CompactBlockSchema, EmptySchema } from "../../proto/index.ts";
import { startMoto } from "../../test/support/moto.ts";
import { spawnServer } from "../lib/spawn.ts";
import { generate } from "./generate.ts";
import { blockHashAt } from "./range.ts";
import { startScaleNode } from "./scale-node.ts";

export interface BootstrapMeasure {
  heights: number;
  /** Writing the store into moto (not part of the bootstrap). */
  generateSec: number;
  /** From spawning `lightedge origin` to its GetLatestBlock answering the sealed tip. */
  bootstrapSec: number;
  /** Node calls bootstrap made (one getblockhash per range). */
  nodeCalls: Record<string, number>;
  /** auditMetadata over the bucket: every range's metadata against its neighbour, and the hash index. */
  auditSec: number;
  auditRanges: number;
  auditIndexEntries: number;
  /** GetBlock by hash at the new origin for an old sealed block answered with its height. */
  originByHashOk: boolean;
}

const SEED = "lightedge-scale";

async function unary(baseUrl: string, method: string, body: Uint8Array): Promise<Uint8Array | undefined> {
  const res = await fetch(`${baseUrl}/cash.z.wallet.sdk.rpc.CompactTxStreamer/${method}`, {
    method: "POST",
    headers: { "content-type": "application/proto", "connect-protocol-version": "1" },
    body: body.slice(),
  }).catch(() => undefined);
  if (res === undefined) return undefined;
  const bytes = new Uint8Array(await res.arrayBuffer());
  return res.ok ? bytes : undefined;
}

/**
 * A new origin adopting a full-height bucket: bench/scale/generate.ts writes 0..`to` into a fresh
 * moto bucket at `payloadScale` (bootstrap reads metadata only, so payload size does not matter),
 * then `lightedge origin` starts on it with a node standing in for the generated chain
 * (scale-node.ts), and the time until it serves the sealed tip is measured. Then a reader audits
 * every range's metadata and the hash index (auditMetadata), timed apart.
 */
export async function measureBootstrap(o: {
  repoRoot: string;
  tmp: string;
  to: number;
  payloadScale: number;
  log(message: string): void;
}): Promise<BootstrapMeasure> {
  const moto = await startMoto();
  const saved = { ...process.env };
  try {
    await moto.createBucket("scale");
    const s3 = {
      S3_ENDPOINT: moto.endpoint,
      S3_REGION: moto.region,
      S3_ACCESS_KEY_ID: moto.accessKeyId,
      S3_SECRET_ACCESS_KEY: moto.secretAccessKey,
    };
    Object.assign(process.env, s3); // the generator's worker threads open the store from the env
    const spec = "s3://scale/lightedge";
    const gen = await generate({
      to: o.to,
      store: spec,
      payloadScale: o.payloadScale,
      rangeSize: 1000,
      network: "mainnet",
      workers: 2,
      seed: SEED,
      log: o.log,
    });
    o.log(`scale bootstrap: ${gen.ranges} ranges into moto in ${gen.seconds.toFixed(1)} s`);
    const node = await startScaleNode({ network: "mainnet", seed: SEED, tip: gen.tip });
    const started = performance.now();
    const origin = await spawnServer(
      "scale-bootstrap-origin",
      [
        process.execPath,
        join(o.repoRoot, "origin/cli/main.ts"),
        ...["origin", "--node", node.url, "--network", "mainnet", "--store", spec],
        ...["--data-dir", join(o.tmp, "bootstrap-origin"), "--listen", "127.0.0.1:0"],
        ...["--admin", "off", "--progress", "off", "--log-level", "warn"],
        // The generated store has no raw-block objects and the scale node serves no blocks, so node-free
        // history could never catch up here (it runs behind serving either way: deferred-sealer.ts).
        ...["--history", "off"],
      ],
      { env: s3, timeoutMs: 300_000 },
    );
    let bootstrapSec = Number.NaN;
    let originByHashOk = false;
    try {
      const latest = toBinary(EmptySchema, create(EmptySchema));
      for (;;) {
        const answer = await unary(origin.url, "GetLatestBlock", latest);
        if (answer && Number(fromBinary(BlockIDSchema, answer).height) === gen.tip) break;
        if (performance.now() - started > 300_000)
          throw new Error("the origin did not serve the tip in 300 s");
        await new Promise((r) => setTimeout(r, 50));
      }
      bootstrapSec = (performance.now() - started) / 1000;
      o.log(`scale bootstrap: lightedge origin served the tip ${gen.tip} after ${bootstrapSec.toFixed(1)} s`);
      const old = Math.floor(gen.tip / 3);
      const hash = blockHashAt("mainnet", SEED, old);
      const block = await unary(
        origin.url,
        "GetBlock",
        toBinary(BlockIDSchema, create(BlockIDSchema, { hash })),
      );
      originByHashOk = block !== undefined && Number(fromBinary(CompactBlockSchema, block).height) === old;
    } finally {
      await origin.stop();
      await node.close();
    }
    const t0 = performance.now();
    const audit = await auditMetadata(openStore(spec, s3), "mainnet", 1000, 32);
    const auditSec = (performance.now() - t0) / 1000;
    o.log(`scale bootstrap: metadata audit of ${audit.ranges} ranges in ${auditSec.toFixed(1)} s`);
    return {
      heights: gen.tip + 1,
      generateSec: gen.seconds,
      bootstrapSec,
      nodeCalls: Object.fromEntries(node.calls),
      auditSec,
      auditRanges: audit.ranges,
      auditIndexEntries: audit.hashIndex?.entries ?? 0,
      originByHashOk,
    };
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
    await moto.stop();
  }
}

// `node bench/scale/bootstrap.ts [--to H] [--payload-scale F]`: the measurement alone, as JSON.
if (process.argv[1] === new URL(import.meta.url).pathname) {
  const { parseArgs } = await import("node:util");
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { values } = parseArgs({
    options: {
      to: { type: "string", default: "3500000" },
      "payload-scale": { type: "string", default: "0.002" },
    },
  });
  const tmp = mkdtempSync(join(tmpdir(), "lightedge-bootstrap-"));
  const repoRoot = new URL("../..", import.meta.url).pathname;
  const log = (m: string) => process.stderr.write(`${m}\n`);
  measureBootstrap({
    repoRoot,
    tmp,
    to: Number(values.to),
    payloadScale: Number(values["payload-scale"]),
    log,
  })
    .then((m) => process.stdout.write(`${JSON.stringify(m, null, 2)}\n`))
    .finally(() => rmSync(tmp, { recursive: true, force: true }));
}
