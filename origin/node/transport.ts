import { readFile } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import { NodeRpcError } from "./errors.ts";
import type { NodeAuthCookie, NodeAuthUserPassword } from "./ports.ts";

/** One HTTP exchange with the node: the status and the whole body. */
export interface HttpAnswer {
  status: number;
  body: Buffer;
}

/** POSTs JSON-RPC bodies to the node over keep-alive connections, at most `maxInFlight` at once. */
export interface HttpTransport {
  post(body: string, method: string): Promise<HttpAnswer>;
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

  async function post(body: string, method: string): Promise<HttpAnswer> {
    if (authHeader === undefined && options.auth && "cookieFile" in options.auth) await refreshAuth();
    await gate.enter();
    try {
      return await exchange(lib, agent, url, body, authHeader, options.timeoutMs, method);
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

function exchange(
  lib: typeof http | typeof https,
  agent: http.Agent,
  url: URL,
  body: string,
  authHeader: string | undefined,
  timeoutMs: number,
  method: string,
): Promise<HttpAnswer> {
  const where = `node-client.${method}`;
  return new Promise((resolve, reject) => {
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
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          clearTimeout(timer);
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
    function fail(err: unknown): void {
      clearTimeout(timer);
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

/** A counting semaphore: bounds requests in flight so a burst queues here, not at the node. */
function createGate(limit: number): { enter(): Promise<void>; leave(): void } {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    enter() {
      if (active < limit) {
        active++;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    leave() {
      const next = waiting.shift();
      if (next) next();
      else active--;
    },
  };
}
