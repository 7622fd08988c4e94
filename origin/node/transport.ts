import { readFile } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import { createGate } from "../../proto/gate.ts";
import { NodeRpcError } from "./errors.ts";
import type { NodeAuthCookie, NodeAuthUserPassword } from "./ports.ts";

/** One HTTP exchange with the node: the status and the whole body. */
export interface HttpAnswer {
  status: number;
  body: Buffer;
}

/** POSTs JSON-RPC bodies to the node over keep-alive connections, at most `maxInFlight` at once. */
export interface HttpTransport {
  /**
   * `signal` aborts the exchange (or the wait for a connection slot) with the signal's reason. An
   * answer over `maxBytes` is refused ("too-large") and its connection dropped (answer-limits.ts).
   */
  post(body: string, method: string, maxBytes: number, signal?: AbortSignal): Promise<HttpAnswer>;
  /** Re-reads the cookie file (after a 401: the node may have restarted and rotated it). */
  refreshAuth(): Promise<void>;
  close(): void;
}

export interface TransportOptions {
  url: string;
  auth?: NodeAuthUserPassword | NodeAuthCookie;
  timeoutMs: number;
  maxInFlight: number;
}

export function createHttpTransport(options: TransportOptions): HttpTransport {
  const url = new URL(options.url);
  const lib = url.protocol === "https:" ? https : http;
  const agent = new lib.Agent({ keepAlive: true, maxSockets: options.maxInFlight });
  const gate = createGate(options.maxInFlight);
  let authHeader = userPasswordHeader(options.auth, url);

  async function refreshAuth(): Promise<void> {
    const auth = options.auth;
    if (auth && "cookieFile" in auth) {
      const cookie = (await readFile(auth.cookieFile, "utf8")).trim();
      authHeader = `Basic ${Buffer.from(cookie).toString("base64")}`;
    }
  }

  async function post(
    body: string,
    method: string,
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<HttpAnswer> {
    if (authHeader === undefined && options.auth && "cookieFile" in options.auth) await refreshAuth();
    await gate.enter(signal);
    try {
      const target = { lib, agent, url, authHeader, timeoutMs: options.timeoutMs };
      return await exchange(target, body, method, maxBytes, signal);
    } finally {
      gate.leave();
    }
  }

  return { post, refreshAuth, close: () => agent.destroy() };
}

function userPasswordHeader(auth: TransportOptions["auth"], url: URL): string | undefined {
  if (auth && "user" in auth)
    return `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString("base64")}`;
  if (url.username)
    return `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`;
  return undefined;
}

interface ExchangeTarget {
  lib: typeof http | typeof https;
  agent: http.Agent;
  url: URL;
  authHeader: string | undefined;
  timeoutMs: number;
}

function exchange(
  { lib, agent, url, authHeader, timeoutMs }: ExchangeTarget,
  body: string,
  method: string,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<HttpAnswer> {
  const where = `node-client.${method}`;
  const tooLarge = () =>
    new NodeRpcError("too-large", where, `node ${method}: answer over ${maxBytes} bytes, refused`, {
      failure: "too-large",
    });
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const headers: http.OutgoingHttpHeaders = {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    };
    if (authHeader) headers.authorization = authHeader;
    const req = lib.request(
      {
        agent,
        method: "POST",
        hostname: url.hostname.replace(/^\[|\]$/g, ""),
        port: url.port,
        path: url.pathname + url.search,
        headers,
        // Destroys the socket on abort: the node sees the connection close and can stop working.
        signal,
      },
      (res) => {
        // Refused before a byte is read when the node says how long it is.
        if (Number(res.headers["content-length"] ?? 0) > maxBytes) return void req.destroy(tooLarge());
        const chunks: Buffer[] = [];
        let received = 0;
        res.on("data", (chunk: Buffer) => {
          received += chunk.length;
          // Chunked, or longer than it said: stop reading and drop the connection.
          if (received > maxBytes) return void req.destroy(tooLarge());
          chunks.push(chunk);
        });
        res.on("end", () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve({
            status: res.statusCode ?? 0,
            body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks),
          });
        });
        res.on("error", (err) => fail(err));
      },
    );
    // One deadline for the whole exchange (connect, send, wait, read), not an idle timeout.
    const timer = setTimeout(() => {
      req.destroy(
        new NodeRpcError("unavailable", where, `node ${method}: no answer within ${timeoutMs} ms`, {
          failure: "timeout",
          transient: true,
        }),
      );
    }, timeoutMs);
    // Settles even when the abort lands mid-body (the socket's end is then not always an error).
    const onAbort = () => fail(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    function fail(err: unknown): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      if (err instanceof NodeRpcError) {
        reject(err);
        return;
      }
      const code = (err as NodeJS.ErrnoException).code ?? "";
      reject(
        new NodeRpcError(
          "unavailable",
          where,
          `node ${method}: cannot reach node at ${url.host} (${code || String(err)})`,
          {
            failure: "refused",
            transient: true,
            cause: err,
          },
        ),
      );
    }
    req.on("error", fail);
    req.end(body);
  });
}
