import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
  createServer as createH2Server,
  createSecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2Session,
} from "node:http2";
import type { AddressInfo, Server, Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { connectNodeAdapter } from "@connectrpc/connect-node";
import {
  type ConnectionLimits,
  createAddressCap,
  DEFAULT_CONNECTION_LIMITS,
  guardRequest,
  guardSession,
} from "./connection-limits.ts";
import { createCleartextRouter } from "./one-port.ts";

type NodeHandlerFn = ReturnType<typeof connectNodeAdapter>;

export interface ListenOptions {
  host: string;
  port: number;
  /** PEM certificate and key: TLS with ALPN h2 + http/1.1 on the same port. */
  tls?: { cert: string; key: string };
  /** Bounds on slow or greedy clients (connection-limits.ts); each defaults separately. */
  limits?: Partial<ConnectionLimits>;
}

export interface ListeningServer {
  /** `http://host:port` or `https://host:port`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** HTTP/2 header lists up to this are read, so an over-long URL gets 414 rather than a refused stream. */
const H2_MAX_HEADER_LIST = 256 * 1024;
/** After an HTTP/1 error answer, what the client is still sending is read and dropped this long. */
const LINGER_MS = 2000;

/**
 * Serves `handler` on one port for every protocol: over TLS, ALPN picks h2 or http/1.1
 * (`allowHTTP1`); in cleartext, the first bytes pick h2c or HTTP/1.1 (one-port.ts). Long response
 * streams are never timed out by the server (clients and the ChainView bound them); slow clients
 * are: headers, the HTTP/2 handshake, request bodies, idle connections and connections per address
 * are bounded (connection-limits.ts).
 */
export async function listen(handler: NodeHandlerFn, options: ListenOptions): Promise<ListeningServer> {
  const limits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
  const sockets = new Set<Socket>();
  const guarded = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    if (guardRequest(req, res, limits)) handler(req as never, res as never);
  };
  const h2Settings = { maxHeaderListSize: H2_MAX_HEADER_LIST };
  let server: Server;
  if (options.tls) {
    const secure = createSecureServer(
      {
        cert: options.tls.cert,
        key: options.tls.key,
        allowHTTP1: true,
        noDelay: true,
        settings: h2Settings,
        maxSessionMemory: 20,
      },
      guarded,
    );
    secure.on("session", (session: Http2Session) => guardSession(session, limits));
    // HTTP/1 over TLS (allowHTTP1) keeps Node's own header and keep-alive timeouts; the
    // per-request body bound, the URL bound and the address cap apply to it as to the rest.
    server = secure;
  } else {
    const h1 = createHttpServer(
      {
        requestTimeout: 0,
        headersTimeout: limits.headersTimeoutMs,
        keepAliveTimeout: limits.idleTimeoutMs,
        connectionsCheckingInterval: Math.max(50, Math.min(1000, limits.headersTimeoutMs / 4)),
      },
      guarded,
    );
    h1.on("clientError", answerClientError);
    const h2 = createH2Server({ settings: h2Settings, maxSessionMemory: 20 }, guarded);
    h2.on("session", (session: Http2Session) => guardSession(session, limits));
    server = createCleartextRouter(h2, h1, limits.firstBytesTimeoutMs);
  }
  const admit = createAddressCap(limits.maxConnectionsPerAddress);
  server.on("connection", (socket: Socket) => {
    if (!admit(socket)) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `${options.tls ? "https" : "http"}://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

const CLIENT_ERROR_STATUS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: "431 Request Header Fields Too Large",
  HPE_URI_TOO_LONG: "414 URI Too Long",
  ERR_HTTP_REQUEST_TIMEOUT: "408 Request Timeout",
};

/**
 * An HTTP/1 request the parser refused (headers over Node's 16 KiB, a header timeout, garbage):
 * a status line, then what the client is still sending is drained for a moment before the socket
 * closes — closing with unread bytes would reset the connection and the client would never see
 * the 431 (nginx's lingering_close does the same).
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || err.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const status = CLIENT_ERROR_STATUS[err.code ?? ""] ?? "400 Bad Request";
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  socket.on("data", () => {});
  socket.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
