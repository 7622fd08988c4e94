/**
 * A seeded fuzzer for the edge's plain-HTTP downloads (`GET /v1/<network>/…`, edge/http/objects.ts):
 * stored objects and paths that are not, with random Range and conditional headers and methods,
 * over real sockets. Every answer is checked against the store's own files: the bytes a 200 or 206
 * carries must be the object's (at the offsets Content-Range claims), a plain GET must be the whole
 * object, a one-range request inside the object exactly that range, a matching If-None-Match a
 * 304 — never a 5xx but 503 (a cached range not yet available), a hang or a reset. The byte checks
 * are this file's own reading of RFC 9110, not the edge's conditional.ts.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { Agent, request } from "node:http";
import { join, relative } from "node:path";
import { createRng, forEachCase } from "./fuzz-requests.ts";

type Rng = ReturnType<typeof createRng>;

export interface ObjectCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The stored file the path names, if it names one the edge serves. */
  key?: string;
  /** The path spells `key` another way: a 404 is as right as the object. */
  aliased?: boolean;
}

export interface ObjectFinding {
  kind: "internal" | "wrong" | "malformed" | "hang" | "reset";
  detail: string;
  case: ObjectCase;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Sealed objects (immutable) the edge serves over GET: every `v1/<network>/r<size>/<index>.<kind>.bin`. */
const SERVED = /^v1\/[a-z0-9-]+\/r\d+\/\d{8}\.(meta|shielded|full|nullifiers)\.bin$/;

/** The store's sealed objects the edge serves, as keys. */
export function servedKeys(storeDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const key = relative(storeDir, path).split("\\").join("/");
        if (SERVED.test(key)) out.push(key);
      }
    }
  };
  walk(storeDir);
  return out.sort();
}

const RANGES = (size: number, rng: Rng): string => {
  const at = () => rng.int(size + 3);
  return rng.pick([
    `bytes=${at()}-${at()}`,
    `bytes=${at()}-`,
    `bytes=-${at()}`,
    "bytes=0-0",
    `bytes=${size - 1}-${size - 1}`,
    `bytes=${size}-`,
    "bytes=-0",
    `bytes=0-${2 ** 53}`,
    `bytes=${at()}-${at()},${at()}-${at()}`,
    "items=0-1",
    "bytes=",
    "bytes=-",
    "bytes=x-y",
    `  bytes=${at()}-${at()}  `,
  ]);
};

/** One random case: a served key most of the time, with headers drawn to hit every branch. */
export function randomObjectCase(
  rng: Rng,
  objects: ReadonlyMap<string, Uint8Array>,
  keys: readonly string[],
  etags: ReadonlyMap<string, string>,
): ObjectCase {
  const key = rng.pick(keys);
  const size = objects.get(key)?.length ?? 1;
  const headers: Record<string, string> = {};
  let path = `/${key}`;
  let served: string | undefined = key;
  let aliased = false;
  if (rng.chance(0.15)) {
    served = undefined;
    path = rng.pick([
      `/${key.replace(/\.bin$/, ".txt")}`,
      `/${key}x`,
      `/${key.replace(/^v1\/[a-z0-9-]+/, "v1/nonet")}`,
      `/${key.replace(/\d{8}/, "99999999")}`,
      "/v1/",
      "/v1/%zz",
      `/v1/${"a".repeat(rng.pick([10, 300, 5000]))}`,
    ]);
  } else if (rng.chance(0.05)) {
    // Spellings of the same key: a dot segment (URL parsing removes it) or percent-encoded
    // characters. Serving the object for them is right; refusing them is too.
    aliased = true;
    path = rng.pick([`/v1/../${key}`, `/${key.replace(/\//g, "%2F")}`, `/${key.replace("bin", "%62in")}`]);
  }
  if (rng.chance(0.6)) headers.range = RANGES(size, rng);
  const etag = etags.get(key) ?? '"x"';
  if (rng.chance(0.2))
    headers["if-none-match"] = rng.pick([etag, `W/${etag}`, '"nope"', "*", `"a", ${etag}`]);
  if (rng.chance(0.15)) headers["if-match"] = rng.pick([etag, `W/${etag}`, '"nope"', "*"]);
  if (rng.chance(0.15))
    headers["if-range"] = rng.pick([etag, `W/${etag}`, '"nope"', "Mon, 07 Dec 2026 00:00:00 GMT"]);
  if (rng.chance(0.05)) headers["if-modified-since"] = "Mon, 07 Dec 2026 00:00:00 GMT";
  const method = rng.chance(0.85) ? "GET" : rng.pick(["HEAD", "POST", "PUT", "DELETE", "OPTIONS"]);
  return { method, path, headers, key: served, aliased };
}

/** The parts of a one-range `Range` value this checker is sure of: `bytes=a-b` inside the object. */
function plainRange(value: string | undefined, size: number): { first: number; last: number } | undefined {
  const m = value === undefined ? null : /^bytes=(\d+)-(\d+)$/.exec(value);
  if (m === null) return undefined;
  const first = Number(m[1]);
  const last = Number(m[2]);
  return first <= last && last < size ? { first, last } : undefined;
}

/** Checks one answer against the stored bytes; a finding or undefined. */
export function checkObjectAnswer(
  c: ObjectCase,
  a: Answer,
  file: Uint8Array | undefined,
  etag: string | undefined,
): Omit<ObjectFinding, "case"> | undefined {
  const header = (name: string) => {
    const v = a.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  if (a.status >= 500 && a.status !== 503) return { kind: "internal", detail: `HTTP ${a.status}` };
  if (c.method === "OPTIONS" && (a.status === 204 || a.status === 200)) return undefined;
  if (c.aliased && (a.status === 404 || a.status === 400)) return undefined;
  if (c.key === undefined || file === undefined || (c.method !== "GET" && c.method !== "HEAD")) {
    return a.status === 200 || a.status === 206
      ? { kind: "wrong", detail: `HTTP ${a.status} for a path or method that serves no object` }
      : undefined;
  }
  const conditional = c.headers["if-match"] ?? c.headers["if-none-match"] ?? c.headers["if-range"];
  const body = c.method === "HEAD" ? undefined : a.body;
  if (c.method === "HEAD" && a.body.length > 0)
    return { kind: "malformed", detail: "HEAD answered with a body" };
  // If-None-Match naming the object's own tag, with no If-Match before it: 304 (§13.1.2).
  if (etag !== undefined && c.headers["if-none-match"] === etag && c.headers["if-match"] === undefined)
    return a.status === 304 && a.body.length === 0
      ? undefined
      : { kind: "wrong", detail: `HTTP ${a.status} for If-None-Match of the object's own tag` };
  if (a.status === 200) {
    if (body !== undefined && !Buffer.from(file).equals(body))
      return {
        kind: "wrong",
        detail: `200 with ${body.length} bytes that are not the object's ${file.length}`,
      };
    const plain = plainRange(c.headers.range, file.length);
    if (plain !== undefined && conditional === undefined)
      return { kind: "wrong", detail: `200 for ${c.headers.range} of a ${file.length}-byte object` };
    return undefined;
  }
  if (a.status === 206) {
    const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header("content-range") ?? "");
    if (m === null) return { kind: "malformed", detail: `206 with Content-Range ${header("content-range")}` };
    const [first, last, size] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (size !== file.length || last >= size || first > last)
      return { kind: "wrong", detail: `206 claims ${first}-${last}/${size} of a ${file.length}-byte object` };
    if (body !== undefined && !Buffer.from(file.subarray(first, last + 1)).equals(body))
      return { kind: "wrong", detail: `206 ${first}-${last}: the bytes are not the object's there` };
    const plain = plainRange(c.headers.range, file.length);
    if (plain !== undefined && conditional === undefined && (plain.first !== first || plain.last !== last))
      return { kind: "wrong", detail: `206 ${first}-${last} for ${c.headers.range}` };
    return undefined;
  }
  if (a.status === 304) {
    if (a.body.length > 0) return { kind: "malformed", detail: "304 with a body" };
    return undefined;
  }
  if (a.status === 416) {
    if (!/^bytes \*\/\d+$/.test(header("content-range") ?? ""))
      return { kind: "malformed", detail: `416 with Content-Range ${header("content-range")}` };
    return undefined;
  }
  if (a.status === 412 || a.status === 503) return undefined;
  return { kind: "malformed", detail: `HTTP ${a.status} for a stored object` };
}

function send(agent: Agent, baseUrl: string, c: ObjectCase, timeoutMs: number) {
  return new Promise<Answer | { failed: "hang" | "reset"; detail: string }>((resolve) => {
    const url = new URL(baseUrl);
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ failed: "hang", detail: `no answer in ${timeoutMs} ms` });
    }, timeoutMs);
    const req = request(
      { host: url.hostname, port: url.port, method: c.method, path: c.path, headers: c.headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.on("error", (err) => {
          clearTimeout(timer);
          resolve({ failed: "reset", detail: String(err) });
        });
      },
    );
    req.on("error", (err) => {
      clearTimeout(timer);
      resolve({ failed: "reset", detail: String(err) });
    });
    req.end();
  });
}

export interface ObjectFuzzResult {
  cases: number;
  answered: number;
  findings: ObjectFinding[];
}

/** Runs `cases` seeded cases against the edge at `url`, whose store is `storeDir`. */
export async function runObjectFuzz(o: {
  url: string;
  storeDir: string;
  cases: number;
  seed: number;
  concurrency?: number;
  timeoutMs?: number;
}): Promise<ObjectFuzzResult> {
  const keys = servedKeys(o.storeDir);
  if (keys.length === 0) throw new Error(`no sealed objects under ${o.storeDir}`);
  const files = new Map(keys.map((k) => [k, new Uint8Array(readFileSync(join(o.storeDir, k)))]));
  const agent = new Agent({ keepAlive: true, maxSockets: o.concurrency ?? 4 });
  // Each object's entity tag as the edge gives it, so conditional headers can match.
  const etags = new Map<string, string>();
  for (const k of keys) {
    const a = await send(agent, o.url, { method: "HEAD", path: `/${k}`, headers: {} }, o.timeoutMs ?? 10_000);
    const tag = "failed" in a ? undefined : a.headers.etag;
    if (typeof tag === "string") etags.set(k, tag);
  }
  const rng = createRng(o.seed);
  const findings: ObjectFinding[] = [];
  let answered = 0;
  try {
    await forEachCase(o.cases, o.concurrency ?? 4, async () => {
      const c = randomObjectCase(rng, files, keys, etags);
      const a = await send(agent, o.url, c, o.timeoutMs ?? 10_000);
      if ("failed" in a) {
        findings.push({ kind: a.failed, detail: a.detail, case: c });
        return;
      }
      answered++;
      const file = c.key === undefined ? undefined : files.get(c.key);
      const f = checkObjectAnswer(c, a, file, c.key === undefined ? undefined : etags.get(c.key));
      if (f) findings.push({ ...f, case: c });
    });
  } finally {
    agent.destroy();
  }
  return { cases: o.cases, answered, findings };
}

/** A finding as one line. */
export function describeObjectFinding(f: ObjectFinding): string {
  return `${f.kind}: ${f.detail} — ${f.case.method} ${f.case.path.slice(0, 120)} ${JSON.stringify(f.case.headers)}`;
}
