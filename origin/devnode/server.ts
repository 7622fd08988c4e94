import { timingSafeEqual } from "node:crypto";
import type http from "node:http";
import { RenderedJson } from "./blocks-rpc.ts";
import { control } from "./control.ts";
import type { Faults, Flood } from "./fault-injection.ts";
import { methods } from "./methods.ts";
import type { NodeState } from "./node-state.ts";
import { RpcFault } from "./rpc-error.ts";

/** Largest request body accepted (a batch of calls or a 2 MB transaction in hex). */
const maxBody = 8 * 1024 * 1024;

interface RpcRequest {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** The dev node's HTTP handler: JSON-RPC (single and batch) on POST /, control under /control/. */
export function createHandler(state: NodeState, faults: Faults, authHeader: () => string | undefined) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > maxBody) req.destroy();
      else chunks.push(c);
    });
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = (req.url ?? "/").split("?")[0]!;
      if (path.startsWith("/control/")) return answerControl(state, faults, path, body, res);
      const expected = authHeader();
      if (expected !== undefined && !sameText(req.headers.authorization ?? "", expected)) {
        res.writeHead(401, { "www-authenticate": 'Basic realm="jsonrpc"' }).end();
        return;
      }
      const delay = faults.nextDelay();
      const run = () => answerRpc(state, faults, body, res);
      if (delay > 0) setTimeout(run, delay);
      else run();
    });
  };
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function answerControl(
  state: NodeState,
  faults: Faults,
  path: string,
  body: string,
  res: http.ServerResponse,
): void {
  let parsed: Record<string, unknown> = {};
  try {
    if (body.trim()) parsed = JSON.parse(body) as Record<string, unknown>;
    const out = control(state, faults, path, parsed);
    if (out === undefined) return void res.writeHead(404).end();
    send(res, 200, JSON.stringify(out));
  } catch (err) {
    send(res, 400, JSON.stringify({ error: err instanceof Error ? err.message : String(err) }));
  }
}

function answerRpc(state: NodeState, faults: Faults, body: string, res: http.ServerResponse): void {
  const action = faults.nextAction();
  if (action.kind === "close") return void res.socket?.destroy();
  if (action.kind === "flood") return void flood(res, action.how);
  if (action.kind === "status") {
    res.writeHead(action.status, { "content-type": "text/plain" }).end(`injected HTTP ${action.status}\n`);
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return void send(
      res,
      200,
      JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }),
    );
  }
  if (action.kind === "code") {
    const id = Array.isArray(parsed) ? null : ((parsed as RpcRequest)?.id ?? null);
    return void send(
      res,
      200,
      JSON.stringify({ jsonrpc: "2.0", id, error: { code: action.code, message: action.message } }),
    );
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0)
      return void send(
        res,
        200,
        JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request" } }),
      );
    void Promise.all(parsed.map((r) => one(state, r as RpcRequest))).then((answers) => {
      const parts: Buffer[] = [Buffer.from("[")];
      answers.forEach((a, i) => {
        if (i > 0) parts.push(Buffer.from(","));
        parts.push(...a);
      });
      parts.push(Buffer.from("]"));
      sendParts(res, parts);
    });
  } else void one(state, parsed as RpcRequest).then((a) => sendParts(res, a));
}

/** One call → its JSON bytes (pre-rendered results, i.e. block hex, are not copied again). */
async function one(state: NodeState, r: RpcRequest): Promise<Buffer[]> {
  const id = JSON.stringify(r?.id ?? null);
  const method = typeof r?.method === "string" ? methods[r.method] : undefined;
  try {
    if (typeof r !== "object" || r === null || typeof r.method !== "string")
      throw new RpcFault(-32600, "Invalid request");
    if (!method) throw new RpcFault(-32601, "Method not found");
    state.calls.set(r.method, (state.calls.get(r.method) ?? 0) + 1);
    let result = method(state, Array.isArray(r.params) ? r.params : []);
    if (result instanceof Promise) result = await result;
    const head = Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":`);
    if (result instanceof RenderedJson) return [head, result.bytes, closeBrace];
    return [head, Buffer.from(JSON.stringify(result)), closeBrace];
  } catch (err) {
    const e =
      err instanceof RpcFault ? err : new RpcFault(-1, err instanceof Error ? err.message : String(err));
    return [
      Buffer.from(
        `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify({ code: e.code, message: e.message })}}`,
      ),
    ];
  }
}

const closeBrace = Buffer.from("}");

function sendParts(res: http.ServerResponse, parts: Buffer[]): void {
  let length = 0;
  for (const p of parts) length += p.length;
  res.writeHead(200, { "content-type": "application/json", "content-length": length });
  res.cork();
  for (const p of parts) res.write(p);
  res.end();
}

/** A JSON-RPC answer whose result string never ends: written as fast as the client reads it. */
function flood(res: http.ServerResponse, how: Flood): void {
  res.writeHead(200, {
    "content-type": "application/json",
    ...(how === "declared" ? { "content-length": 2 ** 40 } : {}),
  });
  const chunk = Buffer.alloc(64 * 1024, "0");
  const more = () => {
    while (!res.destroyed && res.write(chunk)) {}
  };
  res.on("drain", more);
  res.write('{"jsonrpc":"2.0","id":1,"result":"');
  more();
}

function send(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
