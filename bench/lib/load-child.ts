import { Agent, type ClientRequest, request } from "node:http";
import { createFrameCounter, trailerOk } from "./frame-counter.ts";
import type { LoadChildResult, LoadSpec } from "./load.ts";

// One load-generator process: runs `clients` closed-loop clients, each on its own keep-alive
// connection (maxSockets 1), and prints one JSON result line. With a duration, requests still in
// flight at the deadline are cut (not errors): throughput counts what arrived inside the window —
// blocks as frames arrive (or, for the static baseline, pro rata of its bytes) — and latency
// percentiles count completed requests only, so a level lasts its duration however big requests are.
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
    errorCauses: {},
    blocks: 0,
    startedAt: 0,
    endedAt: 0,
  };
  let measuring = false;
  let cut = false;
  const inFlight = new Set<ClientRequest>();
  const base = new URL(spec.baseUrl);
  const one = (agent: Agent, index: number) =>
    new Promise<void>((resolve) => {
      const r = spec.requests[index % spec.requests.length]!;
      const body = bodies[index % spec.requests.length];
      const started = performance.now();
      let settled = false;
      const done = () => {
        settled = true;
        inFlight.delete(req);
        resolve();
      };
      const rpc = r.path.split("/").pop()?.split("?")[0] ?? r.path;
      let errorBody = "";
      const fail = (why: string) => {
        if (settled) return;
        if (measuring && !cut) {
          result.errors++;
          // Counted per cause (RPC, status, message start), so a soak says what failed.
          const cause = `${rpc}: ${why}${errorBody ? ` ${errorBody.replace(/\s+/g, " ").slice(0, 120)}` : ""}`;
          result.errorCauses[cause] = (result.errorCauses[cause] ?? 0) + 1;
          if (result.errorSamples.length < 5) result.errorSamples.push(cause);
        }
        done();
      };
      const req = request(
        { agent, host: base.hostname, port: base.port, method: r.method, path: r.path, headers: r.headers },
        (res) => {
          const counter = createFrameCounter();
          const length = Number(res.headers["content-length"] ?? 0);
          res.on("data", (chunk: Buffer) => {
            if (res.statusCode !== 200 && errorBody.length < 200) errorBody += chunk.toString("utf8", 0, 200);
            if (!measuring || cut) return;
            result.bytes += chunk.length;
            if (spec.countFrames) {
              const before = counter.frames;
              counter.push(chunk);
              result.frames += counter.frames - before;
            } else if (r.blocks && length > 0) result.blocks += (chunk.length * r.blocks) / length;
          });
          res.on("end", () => {
            if (settled) return;
            if (!measuring || cut) return done();
            const status = res.headers["grpc-status"] as string | undefined;
            if (res.statusCode !== 200) return fail(`HTTP ${res.statusCode}`);
            if (spec.countFrames && !trailerOk(counter.trailer, status))
              return fail(`stream: ${counter.trailer ?? "no trailer"}`);
            result.requests++;
            result.latenciesMs.push(performance.now() - started);
            done();
          });
          res.on("error", (e) => fail(String(e)));
          res.on("close", () => fail("connection closed mid-response"));
        },
      );
      inFlight.add(req);
      req.on("error", (e) => fail(String(e)));
      req.end(body);
    });
  const agents = Array.from({ length: spec.clients }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
  // Warm-up: every client's connection opened and the server's caches touched, untimed.
  await Promise.all(
    agents.map(async (agent, c) => {
      for (let i = 0; i < (spec.warmup ?? 0); i++) await one(agent, (spec.clientOffset + c) * 7919 + i);
    }),
  );
  measuring = true;
  result.startedAt = performance.timeOrigin + performance.now();
  const timer = spec.durationMs
    ? setTimeout(() => {
        cut = true;
        result.endedAt = performance.timeOrigin + performance.now();
        for (const req of inFlight) req.destroy();
      }, spec.durationMs)
    : undefined;
  await Promise.all(
    agents.map(async (agent, c) => {
      const seq = spec.clientOffset + c;
      for (let i = 0; !cut && (spec.requestsPerClient === undefined || i < spec.requestsPerClient); i++) {
        await one(agent, seq * 7919 + i + (spec.warmup ?? 0));
      }
    }),
  );
  clearTimeout(timer);
  if (!cut) result.endedAt = performance.timeOrigin + performance.now();
  for (const agent of agents) agent.destroy();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
