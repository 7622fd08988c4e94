import { answerLimit, batchAnswerLimit } from "./answer-limits.ts";
import { httpStatusError, NodeRpcError, nodeCodeError } from "./errors.ts";
import { parseRpcBody } from "./rpc-body.ts";
import type { HttpTransport } from "./transport.ts";

/** One JSON-RPC call. */
export interface RpcCall {
  method: string;
  params: unknown[];
}

/** Calls the node: single calls and batches, with retries of transient failures. */
export interface RpcCaller {
  /** `signal` aborts the request in flight and stops retries (rejects with its reason). */
  call<T>(method: string, params: unknown[], signal?: AbortSignal): Promise<T>;
  /** Results in call order; the first failing call's error is thrown for the whole batch. */
  batch<T>(calls: RpcCall[], signal?: AbortSignal): Promise<T[]>;
}

export interface RpcOptions {
  retries: number;
  backoffMs: number;
  /** Batches allowed (falls back to single calls for good once the node refuses one). */
  batch: boolean;
}

interface RpcAnswer {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown } | null;
}

export function createRpcCaller(transport: HttpTransport, options: RpcOptions): RpcCaller {
  let nextId = 1;
  let batchAllowed = options.batch;

  async function once<T>(calls: RpcCall[], single: boolean, signal?: AbortSignal): Promise<T[]> {
    const first = calls[0].method;
    const ids = calls.map(() => nextId++);
    const body = single
      ? JSON.stringify({ jsonrpc: "2.0", id: ids[0], method: first, params: calls[0].params })
      : JSON.stringify(
          calls.map((c, i) => ({ jsonrpc: "2.0", id: ids[i], method: c.method, params: c.params })),
        );
    const limit = single ? answerLimit(first) : batchAnswerLimit(calls.map((c) => c.method));
    const answer = await transport.post(body, first, limit, signal);
    const parsed = parseRpcBody(answer.body);
    // zcashd answers RPC errors with HTTP 500 and a JSON-RPC error body: the body wins when it parses.
    if (answer.status !== 200 && !isRpcShaped(parsed)) throw httpStatusError(first, answer.status);
    const list: RpcAnswer[] = single ? [parsed as RpcAnswer] : (parsed as RpcAnswer[]);
    if (!Array.isArray(list) || list.length !== calls.length)
      throw badResponse(first, "batch answer has the wrong length");
    const byId = single ? list : orderById(list, ids, first);
    return byId.map((a, i) => resultOf<T>(a, calls[i].method));
  }

  async function withRetries<T>(calls: RpcCall[], single: boolean, signal?: AbortSignal): Promise<T[]> {
    for (let attempt = 0; ; attempt++) {
      // The caller's deadline bounds the retries too: none is started once it has passed.
      signal?.throwIfAborted();
      try {
        return await once<T>(calls, single, signal);
      } catch (err) {
        signal?.throwIfAborted();
        if (err instanceof NodeRpcError && err.failure === "auth" && attempt === 0) {
          await transport.refreshAuth();
          continue;
        }
        if (!(err instanceof NodeRpcError) || !err.transient || attempt >= options.retries) throw err;
        // Exponential backoff with jitter so parallel fetchers do not retry in lockstep.
        await sleep(options.backoffMs * 2 ** attempt * (0.5 + Math.random() / 2), signal);
      }
    }
  }

  async function batch<T>(calls: RpcCall[], signal?: AbortSignal): Promise<T[]> {
    if (calls.length === 0) return [];
    if (calls.length === 1 || !batchAllowed) {
      return Promise.all(calls.map(async (c) => (await withRetries<T>([c], true, signal))[0]));
    }
    try {
      return await withRetries<T>(calls, false, signal);
    } catch (err) {
      if (!(err instanceof NodeRpcError) || !refusesBatches(err)) throw err;
      batchAllowed = false;
      return batch<T>(calls, signal);
    }
  }

  return {
    call: async <T>(method: string, params: unknown[], signal?: AbortSignal) =>
      (await withRetries<T>([{ method, params }], true, signal))[0],
    batch,
  };
}

/** A node without batch support answers a batch with "invalid request" or a non-array body. */
function refusesBatches(err: NodeRpcError): boolean {
  return (
    (err.failure === "bad-response" || (err.failure === "node-error" && err.code === -32600)) &&
    !err.transient
  );
}

function isRpcShaped(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0 && isRpcShaped(v[0]);
  if (typeof v !== "object" || v === null) return false;
  const a = v as RpcAnswer;
  return (
    ("result" in a && "id" in a) ||
    (typeof a.error === "object" && a.error !== null && typeof a.error.code === "number")
  );
}

function orderById(list: RpcAnswer[], ids: number[], method: string): RpcAnswer[] {
  const index = new Map<unknown, RpcAnswer>();
  for (const a of list) index.set(a?.id, a);
  return ids.map((id) => {
    const a = index.get(id);
    if (a === undefined) {
      // A whole-batch error (e.g. a node that refuses batches) carries id null.
      const err = list.find((x) => x?.id === null && x.error);
      if (err) return err;
      throw badResponse(method, `batch answer lacks id ${id}`);
    }
    return a;
  });
}

function resultOf<T>(a: RpcAnswer, method: string): T {
  if (typeof a !== "object" || a === null) throw badResponse(method, "answer is not a JSON-RPC object");
  if (a.error) {
    const code = typeof a.error.code === "number" ? a.error.code : 0;
    throw nodeCodeError(method, code, String(a.error.message ?? "unknown error"));
  }
  if (!("result" in a)) throw badResponse(method, "answer has neither result nor error");
  return a.result as T;
}

export function badResponse(method: string, what: string): NodeRpcError {
  return new NodeRpcError("malformed", `node-client.${method}`, `node ${method}: ${what}`, {
    failure: "bad-response",
  });
}

/** A backoff sleep that ends early, rejecting with the signal's reason, when the signal fires. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
