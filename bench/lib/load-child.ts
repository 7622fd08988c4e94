import { Agent, request } from "node:http";
import { createFrameCounter, trailerOk } from "./frame-counter.ts";
import type { LoadChildResult, LoadSpec } from "./load.ts";

// One load-generator process: runs `clients` closed-loop clients, each on its own keep-alive
// connection (maxSockets 1), and prints one JSON result line.
async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2]!) as LoadSpec & { clients: number; clientOffset: number };
  const bodies = spec.requests.map((r) => (r.bodyBase64 ? Buffer.from(r.bodyBase64, "base64") : undefined));
  const result: LoadChildResult = {
    requests: 0,
    errors: 0,
    bytes: 0,
    frames: 0,
    latenciesMs: [],
    errorSamples: [],
  };
  const deadline = spec.durationMs ? Date.now() + spec.durationMs : Number.POSITIVE_INFINITY;
  const base = new URL(spec.baseUrl);
  const one = (agent: Agent, index: number) =>
    new Promise<void>((resolve) => {
      const r = spec.requests[index % spec.requests.length]!;
      const body = bodies[index % spec.requests.length];
      const started = performance.now();
      const fail = (why: string) => {
        result.errors++;
        if (result.errorSamples.length < 5) result.errorSamples.push(why);
        result.latenciesMs.push(performance.now() - started);
        resolve();
      };
      const req = request(
        { agent, host: base.hostname, port: base.port, method: r.method, path: r.path, headers: r.headers },
        (res) => {
          const counter = createFrameCounter();
          res.on("data", (chunk: Buffer) => {
            result.bytes += chunk.length;
            if (spec.countFrames) counter.push(chunk);
          });
          res.on("end", () => {
            result.requests++;
            const status = res.headers["grpc-status"] as string | undefined;
            if (res.statusCode !== 200) return fail(`HTTP ${res.statusCode}`);
            if (spec.countFrames && !trailerOk(counter.trailer, status))
              return fail(`stream: ${counter.trailer ?? "no trailer"}`);
            result.frames += counter.frames;
            result.latenciesMs.push(performance.now() - started);
            resolve();
          });
          res.on("error", (e) => fail(String(e)));
        },
      );
      req.on("error", (e) => fail(String(e)));
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: spec.clients }, async (_, c) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const seq = spec.clientOffset + c;
      for (
        let i = 0;
        Date.now() < deadline && (spec.requestsPerClient === undefined || i < spec.requestsPerClient);
        i++
      ) {
        await one(agent, seq * 7919 + i);
      }
      agent.destroy();
    }),
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
