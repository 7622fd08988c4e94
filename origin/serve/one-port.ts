import type { Server as HttpServer } from "node:http";
import type { Http2Server } from "node:http2";
import { createServer as createNetServer, type Server } from "node:net";

/** The HTTP/2 connection preface starts with these bytes (RFC 9113 §3.4); no HTTP/1 method does. */
const H2_PREFACE = Buffer.from("PRI");

/**
 * One cleartext port for HTTP/1.1 and h2c (prior knowledge, as gRPC clients speak it): peeks the
 * first bytes of each connection, puts them back, and hands the socket to the HTTP/2 or the
 * HTTP/1 server. Both servers share one request handler.
 */
export function createCleartextRouter(h2: Http2Server, h1: HttpServer, firstBytesTimeoutMs = 10_000): Server {
  // noDelay as node:http sets it on its own sockets: without it Nagle holds a response's last small
  // write (a gRPC-web trailer) until the client's delayed ACK, ~40 ms (bench/origin-view.ts p99).
  const router = createNetServer({ noDelay: true }, (socket) => {
    let seen = Buffer.alloc(0);
    // A client that sends nothing (or a partial preface) for this long is dropped before routing.
    const timer = setTimeout(() => socket.destroy(), firstBytesTimeoutMs);
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      if (seen.length < H2_PREFACE.length && H2_PREFACE.subarray(0, seen.length).equals(seen)) return;
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("error", onEarlyError);
      socket.pause();
      socket.unshift(seen);
      if (seen.subarray(0, H2_PREFACE.length).equals(H2_PREFACE)) {
        // The HTTP/2 session drains the unshifted bytes itself; resuming here would emit them
        // as 'data' events nobody reads, and the session would never see the preface.
        h2.emit("connection", socket);
      } else {
        h1.emit("connection", socket);
        socket.resume();
      }
    };
    const onEarlyError = () => clearTimeout(timer);
    socket.on("data", onData);
    socket.on("error", onEarlyError);
  });
  // node:http checks header and request timeouts only on a server that emitted 'listening'
  // (setupConnectionsTracking); h1 never listens itself, so pass the event on, or a client could
  // send its headers one line every few seconds forever.
  router.once("listening", () => h1.emit("listening"));
  router.once("close", () => h1.close(() => {}));
  return router;
}
