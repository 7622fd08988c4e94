import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse, Http2Session } from "node:http2";
import type { Socket } from "node:net";

/**
 * Bounds on what one client connection may hold, against slow clients (slowloris) and floods.
 * Defaults follow nginx and Node: nginx `client_header_timeout` / `client_body_timeout` 60 s,
 * `keepalive_timeout` 75 s, `large_client_header_buffers` 8 KiB lines; Node's `headersTimeout`
 * 60 s. Neither nginx nor grpc-go caps connections per address by default (nginx `limit_conn`,
 * grpc-go's tap handle are opt-in); 1024 is far above what a wallet or an edge POP opens, and
 * above the bench's 256 clients from one address, while a runaway client still hits a wall.
 */
export interface ConnectionLimits {
  /** The first bytes (HTTP/1 request line or the HTTP/2 preface) within this (ms). */
  firstBytesTimeoutMs: number;
  /** HTTP/1: a request's headers complete within this (Node's headersTimeout). */
  headersTimeoutMs: number;
  /** HTTP/2: the client's SETTINGS (the rest of the connection preface) within this. */
  handshakeTimeoutMs: number;
  /** A request's whole body within this (a trickled body is cut off); streams' responses are not bounded. */
  bodyTimeoutMs: number;
  /** A connection with no request in progress is closed after this (HTTP/1 keep-alive, HTTP/2 without streams). */
  idleTimeoutMs: number;
  /** Open connections per remote address; further ones are closed at once. 0 = no cap. */
  maxConnectionsPerAddress: number;
  /** Longest request target (URL) in bytes; longer ones get 414. */
  maxUrlBytes: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = Object.freeze({
  firstBytesTimeoutMs: 10_000,
  headersTimeoutMs: 20_000,
  handshakeTimeoutMs: 10_000,
  bodyTimeoutMs: 60_000,
  idleTimeoutMs: 75_000,
  maxConnectionsPerAddress: 1024,
  maxUrlBytes: 8192,
});

/** Counts open connections per remote address; `admit` false means close this one now. */
export function createAddressCap(max: number): (socket: Socket) => boolean {
  const open = new Map<string, number>();
  return (socket) => {
    if (max <= 0) return true;
    const address = socket.remoteAddress ?? "";
    const n = open.get(address) ?? 0;
    if (n >= max) return false;
    open.set(address, n + 1);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
    return true;
  };
}

/**
 * HTTP/2 sessions: the client's SETTINGS within handshakeTimeoutMs (a preface alone holds no
 * connection), and a session with no open stream for idleTimeoutMs is closed (as grpc-go's
 * MaxConnectionIdle): GOAWAY, then the socket.
 */
export function guardSession(session: Http2Session, limits: ConnectionLimits): void {
  const handshake = setTimeout(() => session.destroy(), limits.handshakeTimeoutMs);
  session.once("remoteSettings", () => clearTimeout(handshake));
  let streams = 0;
  let idle: NodeJS.Timeout | undefined;
  const armIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      session.close();
      // A client that ignores GOAWAY keeps nothing open for long.
      setTimeout(() => session.destroy(), 1000).unref();
    }, limits.idleTimeoutMs);
  };
  armIdle();
  session.on("stream", (stream) => {
    streams++;
    clearTimeout(idle);
    stream.once("close", () => {
      if (--streams === 0 && !session.destroyed) armIdle();
    });
  });
  session.once("close", () => {
    clearTimeout(handshake);
    clearTimeout(idle);
  });
}

type AnyRequest = IncomingMessage | Http2ServerRequest;
type AnyResponse = ServerResponse | Http2ServerResponse;

/**
 * Per request: a URL over maxUrlBytes is answered 414; a body not complete within bodyTimeoutMs
 * ends the request (HTTP/2: the stream is reset; HTTP/1: the connection is closed, as there is no
 * other way to stop a body). Returns false when the request was answered here.
 */
export function guardRequest(req: AnyRequest, res: AnyResponse, limits: ConnectionLimits): boolean {
  if ((req.url?.length ?? 0) > limits.maxUrlBytes) {
    if ("stream" in req) (res as Http2ServerResponse).writeHead(414).end();
    else (res as ServerResponse).writeHead(414, { connection: "close" }).end();
    req.resume();
    return false;
  }
  if (req.complete) return true;
  const timer = setTimeout(() => {
    if ("stream" in req) req.stream.close(0x8 /* NGHTTP2_CANCEL */);
    else req.socket.destroy();
  }, limits.bodyTimeoutMs);
  const done = () => clearTimeout(timer);
  req.once("end", done);
  req.once("close", done);
  return true;
}
