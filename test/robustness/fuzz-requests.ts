/**
 * A seeded request fuzzer for one server port (the origin's, or the edge's under workerd): every
 * CompactTxStreamer route (and paths that are not routes) over native gRPC (h2c), gRPC-web (binary
 * and text), Connect unary and streaming (proto and JSON) and Connect GET, with valid messages,
 * mutated ones, malformed envelopes, headers and bodies. Each answer is checked to be well formed —
 * an HTTP status the protocol allows, a gRPC status where one is due, never Internal/Unknown, never
 * a reset or a hang — and a correct answer where the request was a plain valid read. Used by the
 * bounded tests (fuzz-requests.test.ts, fuzz-edge.test.ts) and `bench/fuzz-requests.ts` (millions
 * of cases).
 */
import { Agent, request as h1Request } from "node:http";
import { type ClientHttp2Session, connect as h2Connect } from "node:http2";
import {
  create,
  type DescField,
  type DescMessage,
  ScalarType,
  toBinary,
  toJsonString,
} from "@bufbuild/protobuf";
import { CompactTxStreamer } from "../../proto/index.ts";

/** A deterministic PRNG (mulberry32): the same seed replays the same cases. */
export function createRng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    chance: (p: number) => next() < p,
    pick: <T>(xs: readonly T[]): T => xs[int(xs.length)]!,
    bytes: (n: number) => Uint8Array.from({ length: n }, () => int(256)),
  };
}
type Rng = ReturnType<typeof createRng>;

/**
 * Runs `cases` cases, `concurrency` at a time: `run(i)` for i = 0 … cases − 1. Each case is drawn
 * inside `run` from one seeded PRNG, so a seed replays the same cases (their order among the
 * workers may differ).
 */
export async function forEachCase(
  cases: number,
  concurrency: number,
  run: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < cases) await run(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export type FuzzProtocol =
  | "grpc"
  | "grpc-web"
  | "grpc-web-text"
  | "connect-proto"
  | "connect-json"
  | "connect-get";

export interface FuzzCase {
  protocol: FuzzProtocol;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Uint8Array;
  /** The request is a valid read whose answer can be checked (GetBlock by a served height). */
  expect?: { rpc: "GetBlock"; height: number };
}

export interface FuzzFinding {
  kind: "crash" | "hang" | "reset" | "malformed" | "internal" | "wrong";
  detail: string;
  case: FuzzCase;
}

const METHODS = CompactTxStreamer.methods;
const PREFIX = `/${CompactTxStreamer.typeName}/`;

/** A random message of `schema`: every field sometimes set, values biased to edges. */
function randomMessage(rng: Rng, schema: DescMessage, tip: number, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of schema.fields) {
    if (!rng.chance(0.6)) continue;
    const value = randomField(rng, field, tip, depth);
    if (value !== undefined) out[field.localName] = value;
  }
  return out;
}

function randomField(rng: Rng, field: DescField, tip: number, depth: number): unknown {
  switch (field.fieldKind) {
    case "scalar":
      return randomScalar(rng, field.scalar, field.name, tip);
    case "enum":
      return rng.pick([0, 1, 2, 3, 4, 99, -1]);
    case "message":
      return depth > 3 ? undefined : randomMessage(rng, field.message, tip, depth + 1);
    case "list": {
      const n = rng.pick([0, 1, 2, 3, 40]);
      const items: unknown[] = [];
      for (let i = 0; i < n; i++) {
        if (field.listKind === "message") items.push(randomMessage(rng, field.message, tip, depth + 1));
        else if (field.listKind === "enum") items.push(rng.pick([0, 1, 2, 3, 4, 99]));
        else items.push(randomScalar(rng, field.scalar, field.name, tip));
      }
      return items;
    }
    case "map":
      return undefined;
  }
}

function randomScalar(rng: Rng, t: ScalarType, name: string, tip: number): unknown {
  switch (t) {
    case ScalarType.BYTES:
      return rng.bytes(rng.pick([0, 1, 31, 32, 33, rng.int(100)]));
    case ScalarType.STRING:
      if (name === "address" || name === "addresses")
        return rng.pick([
          `t${"1".repeat(34)}`,
          "tmXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
          "",
          "u1x",
          "t".repeat(200),
        ]);
      return rng.pick(["", "a", "\u0000", "sapling", "orchard", "ironwood", "ä".repeat(50)]);
    case ScalarType.BOOL:
      return rng.chance(0.5);
    case ScalarType.UINT64:
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64: {
      const unsigned = t === ScalarType.UINT64 || t === ScalarType.FIXED64;
      const v = rng.pick([
        0n,
        1n,
        BigInt(rng.int(tip + 1)),
        BigInt(tip),
        BigInt(tip + 1),
        BigInt(tip + 50),
        2n ** 32n,
        2n ** 53n,
      ]);
      if (!unsigned && rng.chance(0.1)) return -v;
      if (unsigned && rng.chance(0.05)) return 2n ** 64n - 1n;
      return v;
    }
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return rng.pick([0, 1.5, -1, 1e300]);
    default: {
      const v = rng.pick([0, 1, rng.int(tip + 1), tip + 1, 2 ** 31 - 1]);
      const signed = t === ScalarType.INT32 || t === ScalarType.SINT32 || t === ScalarType.SFIXED32;
      return signed && rng.chance(0.1) ? -v : v;
    }
  }
}

function envelope(rng: Rng, message: Uint8Array): Uint8Array {
  let flag = 0;
  let length = message.length;
  if (rng.chance(0.08)) flag = rng.pick([0x01, 0x02, 0x80, 0x81, 0xff, 0x40]);
  if (rng.chance(0.06)) length = rng.pick([0, length + 1, Math.max(0, length - 1), 0xffffffff, 5_000_000]);
  const out = new Uint8Array(5 + message.length);
  out[0] = flag;
  new DataView(out.buffer).setUint32(1, length >>> 0, false);
  out.set(message, 5);
  if (rng.chance(0.05)) return out.subarray(0, rng.int(out.length + 1));
  if (rng.chance(0.04)) return concat(out, out);
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function mutate(rng: Rng, bytes: Uint8Array): Uint8Array {
  const r = rng.int(6);
  if (r === 0 || bytes.length === 0) return rng.bytes(rng.int(64));
  const out = Uint8Array.from(bytes);
  if (r === 1) {
    out[rng.int(out.length)] = rng.int(256);
    return out;
  }
  if (r === 2) return out.subarray(0, rng.int(out.length));
  if (r === 3) return concat(out, rng.bytes(rng.int(16)));
  if (r === 4)
    return concat(Uint8Array.from([rng.pick([0x0d, 0x09, 0x0a, 0x08, 0x15, 0x1a, 0x7f, 0xff])]), out);
  return Uint8Array.from([0x0d, 0xff, 0xff, 0xff, 0x0f]);
}

const TIMEOUTS = ["1S", "500m", "597H", "99999999H", "0n", "x", "-1S", "100000000S", "10u", ""];
const CONNECT_TIMEOUTS = ["1000", "9999999999", "0", "abc", "-5", "12345678901"];

/** Every protocol, weighted as the fuzzer picks them. */
export const FUZZ_PROTOCOLS: readonly FuzzProtocol[] = [
  "grpc",
  "grpc",
  "grpc-web",
  "grpc-web",
  "grpc-web-text",
  "connect-proto",
  "connect-proto",
  "connect-json",
  "connect-get",
];

/** One random request over one of `protocols`. `tip` lets valid heights be likely. */
export function randomCase(
  rng: Rng,
  tip: number,
  protocols: readonly FuzzProtocol[] = FUZZ_PROTOCOLS,
): FuzzCase {
  const protocol = rng.pick(protocols);
  const m = rng.pick(METHODS);
  let name: string = m.name;
  if (rng.chance(0.03))
    name = rng.pick(["Nope", "", "getBlock", `${m.name}/extra`, "%zz", "..%2F..", "x".repeat(3000)]);
  let path = `${PREFIX}${name}`;
  if (rng.chance(0.02))
    path = rng.pick(["/", "//", "/cash.z.wallet.sdk.rpc.CompactTxStreamer", `/${name}`, `${path}?x=%zz`]);
  const fields = randomMessage(rng, m.input, tip);
  let message: Uint8Array;
  let expectCase: FuzzCase["expect"];
  try {
    const msg = create(m.input, fields as never);
    message = toBinary(m.input, msg);
    if (m.name === "GetBlock" && rng.chance(0.3)) {
      const height = rng.int(tip + 1);
      message = toBinary(m.input, create(m.input, { height: BigInt(height) } as never));
      expectCase = { rpc: "GetBlock", height };
    }
  } catch {
    message = rng.bytes(rng.int(40));
  }
  const mutated = rng.chance(0.3);
  if (mutated) {
    message = mutate(rng, message);
    expectCase = undefined;
  }
  const headers: Record<string, string> = {};
  let body: Uint8Array;
  let method = "POST";
  const stream = m.methodKind !== "unary";
  switch (protocol) {
    case "grpc":
      headers["content-type"] = rng.pick([
        "application/grpc",
        "application/grpc+proto",
        "application/grpc+json",
        "application/grpc+foo",
      ]);
      body = envelope(rng, message);
      if (rng.chance(0.15)) headers["grpc-timeout"] = rng.pick(TIMEOUTS);
      if (rng.chance(0.05)) headers["grpc-encoding"] = rng.pick(["gzip", "identity", "br", "bogus"]);
      headers.te = "trailers";
      break;
    case "grpc-web":
    case "grpc-web-text": {
      const text = protocol === "grpc-web-text";
      headers["content-type"] = text
        ? "application/grpc-web-text"
        : rng.pick(["application/grpc-web", "application/grpc-web+proto", "application/grpc-web+json"]);
      // Sometimes a JSON message quoting a lone surrogate (connect once failed to answer those).
      const json = new TextEncoder().encode('{"height":"\\ud800"}');
      const framed = envelope(rng, rng.chance(0.05) ? json : message);
      body = text
        ? new TextEncoder().encode(rng.chance(0.9) ? Buffer.from(framed).toString("base64") : "!!!not base64")
        : framed;
      if (rng.chance(0.15)) headers["grpc-timeout"] = rng.pick(TIMEOUTS);
      if (rng.chance(0.05)) headers["grpc-encoding"] = rng.pick(["gzip", "bogus"]);
      break;
    }
    case "connect-proto":
      headers["content-type"] = stream ? "application/connect+proto" : "application/proto";
      body = stream ? envelope(rng, message) : message;
      if (rng.chance(0.15)) headers["connect-timeout-ms"] = rng.pick(CONNECT_TIMEOUTS);
      if (rng.chance(0.05))
        headers[stream ? "connect-content-encoding" : "content-encoding"] = rng.pick(["gzip", "bogus"]);
      if (rng.chance(0.5)) headers["connect-protocol-version"] = rng.pick(["1", "2"]);
      break;
    case "connect-json": {
      headers["content-type"] = stream ? "application/connect+json" : "application/json";
      let json: string;
      try {
        json = toJsonString(m.input, create(m.input, fields as never));
      } catch {
        json = "{}";
      }
      if (mutated)
        json = rng.pick([
          "{",
          "[]",
          "null",
          '{"height":"-1"}',
          '{"height":"x"}',
          json.slice(0, rng.int(json.length + 1)),
          '{"poolTypes":["NOPE"]}',
          '{"height":"\\ud800"}',
          '{"hash":"\\udc00"}',
        ]);
      const bytes = new TextEncoder().encode(json);
      body = stream ? envelope(rng, bytes) : bytes;
      if (rng.chance(0.15)) headers["connect-timeout-ms"] = rng.pick(CONNECT_TIMEOUTS);
      break;
    }
    case "connect-get": {
      method = rng.chance(0.9) ? "GET" : rng.pick(["PUT", "DELETE", "HEAD", "OPTIONS"]);
      const b64 = Buffer.from(message).toString("base64url");
      const q = rng.pick([
        `?encoding=proto&base64=1&message=${b64}&connect=v1`,
        `?encoding=proto&message=${b64}`,
        "?encoding=json&message=%7B%7D&connect=v1",
        "?encoding=nope&message=x",
        "?message=%zz",
        "",
      ]);
      path = `${path}${q}`;
      body = new Uint8Array(0);
      break;
    }
  }
  if (rng.chance(0.03))
    headers["content-type"] = rng.pick([
      "",
      "text/plain",
      "application/grpc-web-text+json",
      "application/x-protobuf",
    ]);
  // GetMempoolStream runs until the tip moves (lightwalletd does the same): give it a deadline.
  if (m.name === "GetMempoolStream") {
    if (protocol.startsWith("connect")) headers["connect-timeout-ms"] = "500";
    else headers["grpc-timeout"] = "500m";
  }
  if (rng.chance(0.02)) headers["x-lightedge-secret"] = "wrong";
  return { protocol, method, path, headers, body, expect: expectCase };
}

/** An answer as read off the wire. */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  trailers: Record<string, string | string[] | undefined>;
}

const GRPC_BAD = new Set(["2", "13"]); // Unknown, Internal: a server bug, never an answer to bad input
const CONNECT_BAD = new Set(["unknown", "internal"]);
const CONNECT_CODES = new Set([
  "canceled",
  "unknown",
  "invalid_argument",
  "deadline_exceeded",
  "not_found",
  "already_exists",
  "permission_denied",
  "resource_exhausted",
  "failed_precondition",
  "aborted",
  "out_of_range",
  "unimplemented",
  "internal",
  "unavailable",
  "data_loss",
  "unauthenticated",
]);
/** HTTP statuses a protocol layer may answer before any RPC status (routing, method, content type, limits). */
const HTTP_ONLY = new Set([400, 404, 405, 408, 411, 413, 414, 415, 431, 505]);

/** Checks one answer; returns a finding or undefined. */
export function checkAnswer(c: FuzzCase, a: Answer): Omit<FuzzFinding, "case"> | undefined {
  const header = (name: string) => {
    const v = a.headers[name] ?? a.trailers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  // OPTIONS is the CORS preflight: a browser-facing server answers it with 204 and its CORS
  // headers, Origin or not (RFC 9110 §9.3.7: OPTIONS asks for the communication options).
  if (c.method === "OPTIONS" && (a.status === 204 || a.status === 200)) return undefined;
  if (a.status >= 500 && a.status !== 501 && a.status !== 503 && a.status !== 504) {
    return { kind: "internal", detail: `HTTP ${a.status} ${a.body.subarray(0, 200).toString()}` };
  }
  // A gRPC-web answer is read as its content type says (a case's content type may have been
  // swapped for another protocol's, which the server then rightly speaks).
  const answerType = header("content-type") ?? "";
  const webAnswer = answerType.startsWith("application/grpc-web");
  if (c.protocol === "grpc" || c.protocol === "grpc-web" || c.protocol === "grpc-web-text" || webAnswer) {
    if (a.status !== 200)
      return HTTP_ONLY.has(a.status) ? undefined : { kind: "malformed", detail: `HTTP ${a.status}` };
    let status = header("grpc-status");
    if ((c.protocol !== "grpc" || webAnswer) && status === undefined) {
      const text = webAnswer
        ? answerType.startsWith("application/grpc-web-text")
        : c.protocol === "grpc-web-text";
      const frames = text ? Buffer.from(a.body.toString(), "base64") : a.body;
      status = webTrailerStatus(frames);
      if (status === undefined)
        return { kind: "malformed", detail: "gRPC-web response without a trailer frame" };
    }
    if (status === undefined) return { kind: "malformed", detail: "gRPC response without grpc-status" };
    if (!/^(\d|1[0-6])$/.test(status)) return { kind: "malformed", detail: `grpc-status ${status}` };
    if (GRPC_BAD.has(status))
      return {
        kind: "internal",
        detail: `grpc-status ${status}: ${decodeURIComponent(header("grpc-message") ?? "")}`,
      };
    return undefined;
  }
  // Connect.
  const type = header("content-type") ?? "";
  if (
    a.status === 200 &&
    (type.startsWith("application/connect+") ||
      (c.path.includes("GetBlockRange") && type.includes("connect")))
  ) {
    const end = connectEndStream(a.body);
    if (end === undefined) return { kind: "malformed", detail: "Connect stream without an end-stream frame" };
    if (end.error !== undefined) {
      if (!CONNECT_CODES.has(end.error)) return { kind: "malformed", detail: `end-stream code ${end.error}` };
      if (CONNECT_BAD.has(end.error))
        return { kind: "internal", detail: `end-stream ${end.error}: ${end.message}` };
    }
    return undefined;
  }
  if (a.status === 200) {
    if (c.expect?.rpc === "GetBlock" && type === "application/proto") {
      // CompactBlock.height is field 2 (varint): read it off the bytes.
      const height = readVarintField(a.body, 2) ?? 0; // proto3 leaves a zero height out
      if (height !== c.expect.height)
        return { kind: "wrong", detail: `GetBlock ${c.expect.height} answered height ${height}` };
    }
    return undefined;
  }
  if (type.startsWith("application/json")) {
    let code: unknown;
    try {
      code = JSON.parse(a.body.toString()).code;
    } catch {
      return { kind: "malformed", detail: `HTTP ${a.status} with a JSON body that does not parse` };
    }
    if (typeof code !== "string" || !CONNECT_CODES.has(code))
      return { kind: "malformed", detail: `Connect error code ${String(code)}` };
    if (CONNECT_BAD.has(code))
      return { kind: "internal", detail: `Connect ${code}: ${a.body.subarray(0, 200).toString()}` };
    return undefined;
  }
  return HTTP_ONLY.has(a.status) || a.status === 501 || a.status === 503 || a.status === 504
    ? undefined
    : { kind: "malformed", detail: `HTTP ${a.status} (${type})` };
}

function webTrailerStatus(body: Buffer): string | undefined {
  let at = 0;
  let status: string | undefined;
  while (at + 5 <= body.length) {
    const flag = body[at]!;
    const len = body.readUInt32BE(at + 1);
    if (at + 5 + len > body.length) return undefined;
    if (flag & 0x80)
      status = /grpc-status:\s*(\d+)/i.exec(body.subarray(at + 5, at + 5 + len).toString())?.[1];
    at += 5 + len;
  }
  return at === body.length ? status : undefined;
}

function connectEndStream(body: Buffer): { error?: string; message?: string } | undefined {
  let at = 0;
  let end: { error?: string; message?: string } | undefined;
  while (at + 5 <= body.length) {
    const flag = body[at]!;
    const len = body.readUInt32BE(at + 1);
    if (at + 5 + len > body.length) return undefined;
    if (flag & 0x02) {
      try {
        const json = JSON.parse(body.subarray(at + 5, at + 5 + len).toString());
        end = { error: json.error?.code, message: json.error?.message };
      } catch {
        return undefined;
      }
    }
    at += 5 + len;
  }
  return at === body.length ? end : undefined;
}

function readVarintField(bytes: Buffer, field: number): number | undefined {
  let at = 0;
  const varint = () => {
    let v = 0n;
    for (let shift = 0n; at < bytes.length; shift += 7n) {
      const b = bytes[at++]!;
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return v;
    }
    return v;
  };
  while (at < bytes.length) {
    const tag = Number(varint());
    const wire = tag & 7;
    if (tag >>> 3 === field && wire === 0) return Number(varint());
    if (wire === 0) varint();
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) at += Number(varint());
    else return undefined;
  }
  return undefined;
}

/**
 * Sends cases to one URL over a keep-alive HTTP/1.1 agent and one h2c session; with `h2` false,
 * native gRPC cases go over HTTP/1.1 too (a server that speaks only HTTP/1.1, as workerd does
 * locally, must still answer them: with an HTTP status, never a reset).
 */
export function createFuzzClient(baseUrl: string, timeoutMs: number, h2Enabled = true) {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  let session: ClientHttp2Session | undefined;
  const h2 = () => {
    if (session === undefined || session.closed || session.destroyed) {
      session = h2Connect(baseUrl, { maxSendHeaderBlockLength: 300_000 } as never);
      session.on("error", () => {});
    }
    return session;
  };
  const send = (c: FuzzCase): Promise<Answer | { failed: "hang" | "reset"; detail: string }> =>
    new Promise((resolve) => {
      let settled = false;
      const done = (v: Answer | { failed: "hang" | "reset"; detail: string }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(v);
      };
      const timer = setTimeout(
        () => done({ failed: "hang", detail: `no answer in ${timeoutMs} ms` }),
        timeoutMs,
      );
      if (c.protocol === "grpc" && h2Enabled) {
        let req: ReturnType<ClientHttp2Session["request"]>;
        try {
          req = h2().request({ ":method": c.method, ":path": c.path, ...c.headers });
        } catch (err) {
          done({ failed: "reset", detail: String(err) });
          return;
        }
        let headers: Record<string, string | string[] | undefined> = {};
        let trailers: Record<string, string | string[] | undefined> = {};
        const chunks: Buffer[] = [];
        req.on("response", (h) => (headers = h as never));
        req.on("trailers", (t) => (trailers = t as never));
        req.on("data", (d: Buffer) => chunks.push(d));
        req.on("end", () =>
          done({ status: Number(headers[":status"] ?? 0), headers, body: Buffer.concat(chunks), trailers }),
        );
        req.on("error", (err: NodeJS.ErrnoException) => {
          // A stream the server refuses with a code is an answer of a kind; a reset after the head is not.
          done({ failed: "reset", detail: `${err.code ?? ""} ${err.message}` });
        });
        req.setTimeout(timeoutMs, () => req.close());
        req.end(c.body);
        return;
      }
      const url = new URL(baseUrl);
      const req = h1Request(
        { host: url.hostname, port: url.port, method: c.method, path: c.path, headers: c.headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (d: Buffer) => chunks.push(d));
          res.on("end", () =>
            done({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks),
              trailers: res.trailers,
            }),
          );
          res.on("error", (err) => done({ failed: "reset", detail: String(err) }));
        },
      );
      req.on("error", (err: NodeJS.ErrnoException) =>
        done({ failed: "reset", detail: `${err.code ?? ""} ${err.message}` }),
      );
      req.end(c.method === "GET" || c.method === "HEAD" ? undefined : c.body);
    });
  return {
    send,
    close() {
      agent.destroy();
      session?.destroy();
    },
  };
}

export interface FuzzRunOptions {
  url: string;
  cases: number;
  seed: number;
  /** The served tip, so valid heights are likely. */
  tip: number;
  /** Requests in flight at once. */
  concurrency?: number;
  /** The protocols sent (default FUZZ_PROTOCOLS, weighted). */
  protocols?: readonly FuzzProtocol[];
  /** Native gRPC over h2c (default); false: over HTTP/1.1, for a server without HTTP/2. */
  h2?: boolean;
  timeoutMs?: number;
  /** Called after every `every` cases (progress for the bench). */
  progress?: (done: number, findings: number) => void;
}

export interface FuzzRunResult {
  cases: number;
  findings: FuzzFinding[];
  /** Answers by kind: statuses seen (for the report). */
  answered: number;
}

/** Runs `cases` seeded cases against `url`; findings are returned, never thrown. */
export async function runRequestFuzz(o: FuzzRunOptions): Promise<FuzzRunResult> {
  const rng = createRng(o.seed);
  const client = createFuzzClient(o.url, o.timeoutMs ?? 10_000, o.h2 ?? true);
  const findings: FuzzFinding[] = [];
  let answered = 0;
  try {
    await forEachCase(o.cases, o.concurrency ?? 4, async (i) => {
      const c = randomCase(rng, o.tip, o.protocols);
      const a = await client.send(c);
      if ("failed" in a) findings.push({ kind: a.failed, detail: a.detail, case: c });
      else {
        answered++;
        const f = checkAnswer(c, a);
        if (f) findings.push({ ...f, case: c });
      }
      if (o.progress && (i + 1) % 10_000 === 0) o.progress(i + 1, findings.length);
    });
  } finally {
    client.close();
  }
  return { cases: o.cases, findings, answered };
}

/** A finding as one line for logs and reports (bodies shortened). */
export function describeFinding(f: FuzzFinding): string {
  const body = Buffer.from(f.case.body.subarray(0, 48)).toString("hex");
  return `${f.kind}: ${f.detail} — ${f.case.protocol} ${f.case.method} ${f.case.path.slice(0, 120)} ${JSON.stringify(f.case.headers)} body ${body}${f.case.body.length > 48 ? "…" : ""}`;
}
