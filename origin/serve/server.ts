import { createServer as createHttpServer } from "node:http";
import { createServer as createH2Server, createSecureServer } from "node:http2";
import type { AddressInfo, Server, Socket } from "node:net";
import type { connectNodeAdapter } from "@connectrpc/connect-node";
import { createCleartextRouter } from "./one-port.ts";

type NodeHandlerFn = ReturnType<typeof connectNodeAdapter>;

export interface ListenOptions {
  host: string;
  port: number;
  /** PEM certificate and key: TLS with ALPN h2 + http/1.1 on the same port. */
  tls?: { cert: string; key: string };
}

export interface ListeningServer {
  /** `http://host:port` or `https://host:port`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `handler` on one port for every protocol: over TLS, ALPN picks h2 or http/1.1
 * (`allowHTTP1`); in cleartext, the first bytes pick h2c or HTTP/1.1 (one-port.ts). Long
 * streams are never timed out by the server; clients and the ChainView bound them.
 */
export async function listen(handler: NodeHandlerFn, options: ListenOptions): Promise<ListeningServer> {
  const sockets = new Set<Socket>();
  let server: Server;
  if (options.tls) {
    server = createSecureServer(
      { cert: options.tls.cert, key: options.tls.key, allowHTTP1: true, noDelay: true },
      handler,
    );
  } else {
    const h1 = createHttpServer({ requestTimeout: 0 }, handler);
    server = createCleartextRouter(createH2Server(handler), h1);
  }
  server.on("connection", (socket: Socket) => {
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
