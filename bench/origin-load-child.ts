// One load-generator process for bench/origin-rpc.ts: `clients` closed-loop gRPC clients, each on
// its own HTTP/2 connection, alternating GetLatestBlock and GetBlock at random heights for
// `durationMs`; prints one JSON line {requests, errors, latenciesMs, errorSamples}.
import { ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { CompactTxStreamer } from "../proto/index.ts";

const spec = JSON.parse(process.argv[2]!) as {
  url: string;
  clients: number;
  durationMs: number;
  tip: number;
  seed: number;
};
const result = { requests: 0, errors: 0, latenciesMs: [] as number[], errorSamples: [] as string[] };
let seed = spec.seed >>> 0;
const random = () => {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return seed / 2 ** 32;
};

async function client(): Promise<void> {
  // A transport per client: its own HTTP/2 session, i.e. its own TCP connection.
  const c = createClient(CompactTxStreamer, createGrpcTransport({ baseUrl: spec.url }));
  const deadline = Date.now() + spec.durationMs;
  for (let i = 0; Date.now() < deadline; i++) {
    const started = performance.now();
    try {
      if (i % 2 === 0) await c.getLatestBlock({});
      else await c.getBlock({ height: BigInt(Math.floor(random() * (spec.tip + 1))) });
      result.requests++;
    } catch (err) {
      result.errors++;
      if (result.errorSamples.length < 5) result.errorSamples.push(ConnectError.from(err).message);
    }
    result.latenciesMs.push(performance.now() - started);
  }
}

await Promise.all(Array.from({ length: spec.clients }, () => client()));
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
