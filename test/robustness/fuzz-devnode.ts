/**
 * A seeded fuzzer for the dev node (origin/devnode): its JSON-RPC endpoint (single calls, batches,
 * malformed JSON, wrong params) and its control API (every path, odd bodies). It only calls the
 * node. Each answer must be HTTP with a JSON body: JSON-RPC results or error objects (2xx, or the
 * 4xx/500-with-JSON-RPC-error zcashd uses), control answers as JSON; never a reset or a hang.
 */
import { Agent, request } from "node:http";
import { createRng } from "./fuzz-requests.ts";

type Rng = ReturnType<typeof createRng>;

export interface DevnodeCase {
  path: string;
  method: string;
  body: string;
}

export interface DevnodeFinding {
  kind: "hang" | "reset" | "malformed" | "server-error";
  detail: string;
  case: DevnodeCase;
}

const RPC_METHODS = [
  "getinfo",
  "getblockchaininfo",
  "getbestblockhash",
  "getblockcount",
  "getblockhash",
  "getblock",
  "z_gettreestate",
  "z_getsubtreesbyindex",
  "getrawtransaction",
  "sendrawtransaction",
  "getrawmempool",
  "getaddresstxids",
  "getaddressbalance",
  "getaddressutxos",
  "nope",
  "",
  "__proto__",
  "constructor",
  "toString",
];

function randomParam(rng: Rng, tip: number, depth = 0): unknown {
  switch (rng.int(11)) {
    case 0:
      return rng.int(tip + 3);
    case 1:
      return rng.pick([-1, 0, 2 ** 31, 2 ** 53, 1e308, 0.5, Number.NaN]);
    case 2:
      return Buffer.from(rng.bytes(32)).toString("hex");
    case 3:
      return rng.pick([
        "",
        "x",
        "sapling",
        "orchard",
        "ironwood",
        "zz".repeat(32),
        "0".repeat(64),
        "1".repeat(1000),
      ]);
    case 4:
      return rng.chance(0.5);
    case 5:
      return null;
    case 6:
      return depth > 2 ? [] : Array.from({ length: rng.int(4) }, () => randomParam(rng, tip, depth + 1));
    case 7:
      return depth > 2
        ? {}
        : {
            addresses: rng.pick([[`t${"1".repeat(34)}`], [], "t1", [1, 2], null]),
            start: randomParam(rng, tip, 3),
            end: randomParam(rng, tip, 3),
          };
    case 8:
      return rng.pick([0, 1, 2, 3, "1", "0"]);
    case 9:
      return Buffer.from(rng.bytes(rng.int(200))).toString("hex");
    default:
      return { __proto__: { polluted: true }, constructor: { prototype: {} } };
  }
}

function rpcCall(rng: Rng, tip: number): unknown {
  const call: Record<string, unknown> = {
    jsonrpc: rng.pick(["2.0", "1.0", undefined, 2]),
    id: rng.pick([1, "x", null, undefined, {}, [1]]),
    method: rng.pick(RPC_METHODS),
  };
  if (rng.chance(0.9)) call.params = Array.from({ length: rng.int(4) }, () => randomParam(rng, tip));
  else call.params = rng.pick([{}, "x", null, 5]);
  return call;
}

export function randomDevnodeCase(rng: Rng, tip: number, withControl: boolean): DevnodeCase {
  if (withControl && rng.chance(0.5)) {
    const path = rng.pick([
      "/control/state",
      "/control/mine",
      "/control/reorg",
      "/control/mempool",
      "/control/stall",
      "/control/fail",
      "/control/syncing",
      "/control/clear",
      "/control/nope",
      "/control/",
      "/control/%zz",
    ]);
    const body = rng.pick([
      "{}",
      "",
      "{",
      "null",
      "[]",
      JSON.stringify({ blocks: rng.pick([0, 1, 2, -1, 1.5, "3", null, 100_000]) }),
      JSON.stringify({ depth: rng.pick([0, 1, 3, tip + 5, -1, 1e9]) }),
      JSON.stringify({ count: rng.pick([0, 1, 3, -1, 100_000, "2"]) }),
      JSON.stringify({
        hex: rng.pick([["00"], ["zz"], "x", [1], [Buffer.from(rng.bytes(40)).toString("hex")]]),
      }),
      JSON.stringify({ ms: rng.pick([0, 10, -1, 1e12]), requests: rng.pick([1, 0, -1, "x"]) }),
      JSON.stringify({
        status: rng.pick([200, 503, 0, 999, -1, "x"]),
        code: rng.pick([-8, 0, "x"]),
        message: rng.pick(["m", 5]),
        close: rng.chance(0.3),
        requests: 1,
      }),
      JSON.stringify({ behind: rng.pick([0, 5, -1, 1e15]) }),
    ]);
    return {
      path,
      method: path === "/control/state" && rng.chance(0.7) ? "GET" : rng.pick(["POST", "POST", "GET", "PUT"]),
      body,
    };
  }
  let body: string;
  const r = rng.int(10);
  if (r === 0) body = rng.pick(["", "{", "[", "null", "1", '"x"', "[]", "{}", "\u0000", "[1,2]"]);
  else if (r === 1) body = JSON.stringify(Array.from({ length: rng.int(5) }, () => rpcCall(rng, tip)));
  else body = JSON.stringify(rpcCall(rng, tip));
  return {
    path: rng.pick(["/", "/", "/", "/wallet", "/%zz"]),
    method: rng.pick(["POST", "POST", "POST", "POST", "GET"]),
    body,
  };
}

export function checkDevnodeAnswer(status: number, type: string, body: string): string | undefined {
  if (status >= 500 && status !== 500 && status !== 503) return `HTTP ${status}`;
  if (body === "") return status === 200 ? "empty 200 body" : undefined;
  if (!type.includes("json")) return status < 500 ? undefined : `HTTP ${status} ${type}`;
  try {
    const json = JSON.parse(body);
    if (status === 500) {
      // zcashd answers RPC errors with HTTP 500 and a JSON-RPC error body; anything else is a crash.
      const ok = (x: unknown) =>
        typeof x === "object" && x !== null && "error" in x && (x as { error: unknown }).error !== null;
      if (!(Array.isArray(json) ? json.every(ok) : ok(json))) return `HTTP 500 ${body.slice(0, 200)}`;
    }
  } catch {
    return `a ${type} body that does not parse: ${body.slice(0, 120)}`;
  }
  return undefined;
}

export interface DevnodeFuzzOptions {
  url: string;
  cases: number;
  seed: number;
  tip: number;
  /** Control API too (changes the chain; use a dev node of its own). */
  control: boolean;
  timeoutMs?: number;
}

/** Runs the cases one at a time (control calls change what later calls see). */
export async function runDevnodeFuzz(o: DevnodeFuzzOptions): Promise<{ findings: DevnodeFinding[] }> {
  const rng = createRng(o.seed);
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  const url = new URL(o.url);
  const findings: DevnodeFinding[] = [];
  const send = (c: DevnodeCase) =>
    new Promise<
      { status: number; type: string; body: string } | { failed: "hang" | "reset"; detail: string }
    >((resolve) => {
      const timer = setTimeout(() => {
        req.destroy();
        resolve({ failed: "hang", detail: `no answer in ${o.timeoutMs ?? 10_000} ms` });
      }, o.timeoutMs ?? 10_000);
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: c.path,
          method: c.method,
          agent,
          headers: { "content-type": "application/json" },
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (d: string) => (body += d));
          res.on("end", () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), body });
          });
        },
      );
      req.on("error", (err) => {
        clearTimeout(timer);
        resolve({ failed: "reset", detail: String(err) });
      });
      req.end(c.method === "GET" ? undefined : c.body);
    });
  const clear = () => send({ path: "/control/clear", method: "POST", body: "{}" });
  let lastControl: DevnodeCase | undefined;
  // /control/fail bodies sent since the faults were last cleared: other control calls may follow
  // one before the JSON-RPC call it fails.
  let fails: string[] = [];
  try {
    for (let i = 0; i < o.cases; i++) {
      const c = randomDevnodeCase(rng, o.tip, o.control);
      if (c.path.startsWith("/control/")) lastControl = c;
      if (c.path === "/control/fail") fails.push(c.body);
      const a = await send(c);
      if ("failed" in a) {
        // A reset while a /control/fail {close:true} fault is set is that fault doing its job.
        const closeFault = fails.some((body) => body.includes('"close":true'));
        if (!closeFault) {
          findings.push({ kind: a.failed, detail: a.detail, case: c });
          // A node that hangs or dies answers nothing more: stop here (the caller sees why).
          if (await clear().then((r) => "failed" in r)) break;
        }
      } else {
        // So is the status a /control/fail {status} fault answers with: only the fault answers
        // this body (origin/devnode/server.ts).
        const statusFault = a.body === `injected HTTP ${a.status}\n`;
        const problem = statusFault ? undefined : checkDevnodeAnswer(a.status, a.type, a.body);
        if (problem)
          findings.push({ kind: a.status >= 500 ? "server-error" : "malformed", detail: problem, case: c });
      }
      // Faults stay set for the next JSON-RPC call (as the control API means them), then go.
      if (!c.path.startsWith("/control/") && lastControl !== undefined) {
        await clear();
        lastControl = undefined;
        fails = [];
      }
    }
  } finally {
    agent.destroy();
  }
  return { findings };
}

export function describeDevnodeFinding(f: DevnodeFinding): string {
  return `${f.kind}: ${f.detail.slice(0, 200)} — ${f.case.method} ${f.case.path} ${f.case.body.slice(0, 200)}`;
}
