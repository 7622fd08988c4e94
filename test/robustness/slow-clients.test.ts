import type { IncomingMessage, ServerResponse } from "node:http";
import { connect as h2Connect } from "node:http2";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ListeningServer, listen } from "../../origin/serve/server.ts";

/**
 * The one-port listener against slow clients, with short bounds: each test dribbles bytes for far
 * longer than its bound (in real sockets) and expects the server to close first.
 */
const BOUND = 300;
const DRIBBLE = 20 * BOUND;
let server: ListeningServer;
let port: number;

beforeAll(async () => {
  // A handler that reads the whole body, then answers: what every RPC does first.
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => res.writeHead(200).end("ok"));
  };
  server = await listen(handler as never, {
    host: "127.0.0.1",
    port: 0,
    limits: {
      firstBytesTimeoutMs: BOUND,
      headersTimeoutMs: BOUND,
      handshakeTimeoutMs: BOUND,
      bodyTimeoutMs: BOUND,
      idleTimeoutMs: BOUND,
      maxConnectionsPerAddress: 4,
    },
  });
  port = server.port;
});
afterAll(() => server?.close());

/** Opens a socket and writes `parts` one by one every `every` ms; resolves how it ended. */
function dribble(parts: (string | Buffer)[], every: number) {
  return new Promise<{ closedEarly: boolean; received: string }>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    let i = 0;
    let finished = false;
    const timer = setInterval(() => {
      if (i < parts.length) socket.write(parts[i++]!);
      else {
        finished = true;
        clearInterval(timer);
        socket.destroy();
      }
    }, every);
    socket.on("data", (d) => (received += d.toString("latin1")));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(timer);
      resolve({ closedEarly: !finished, received });
    });
  });
}

const lines = (n: number) => Array.from({ length: n }, (_, i) => `x-slow-${i}: ${i}\r\n`);

describe("the one-port listener against slow clients", () => {
  it("closes a connection that sends nothing", async () => {
    expect((await dribble(Array(DRIBBLE / 100).fill(""), 100)).closedEarly).toBe(true);
  });

  it("closes an HTTP/1 connection whose headers come one line at a time", async () => {
    const r = await dribble(["GET / HTTP/1.1\r\n", ...lines(DRIBBLE / 100)], 100);
    expect(r.closedEarly).toBe(true);
    expect(r.received).toMatch(/^HTTP\/1\.1 408/);
  });

  it("closes an h2c connection that sends the preface and nothing more", async () => {
    const preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    expect((await dribble([preface, ...Array(DRIBBLE / 100).fill("")], 100)).closedEarly).toBe(true);
  });

  it("ends an HTTP/1 request whose body trickles", async () => {
    const head = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n";
    const r = await dribble([head, ...Array(DRIBBLE / 100).fill("a")], 100);
    expect(r.closedEarly).toBe(true);
    expect(r.received).toBe("");
  });

  it("resets an HTTP/2 stream whose body trickles", async () => {
    const session = h2Connect(server.url);
    try {
      const req = session.request({ ":method": "POST", ":path": "/" });
      const timer = setInterval(() => req.write("a"), 100);
      const ended = await new Promise<string>((resolve) => {
        req.on("response", (h) => resolve(`status ${h[":status"]}`));
        req.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
        req.on("close", () => resolve(`closed ${req.rstCode}`));
        setTimeout(() => resolve("still open"), DRIBBLE);
      });
      clearInterval(timer);
      expect(ended).toMatch(/ERR_HTTP2_STREAM_ERROR|closed 8/);
    } finally {
      session.destroy();
    }
  });

  it("closes idle connections: HTTP/1 keep-alive and HTTP/2 without streams", async () => {
    const r = await dribble(["GET / HTTP/1.1\r\nHost: x\r\n\r\n", ...Array(DRIBBLE / 100).fill("")], 100);
    expect(r.closedEarly).toBe(true);
    expect(r.received).toMatch(/^HTTP\/1\.1 200/);
    const session = h2Connect(server.url);
    const closed = await new Promise<string>((resolve) => {
      session.on("goaway", () => resolve("goaway"));
      session.on("close", () => resolve("close"));
      session.on("error", () => {});
      setTimeout(() => resolve("still open"), DRIBBLE);
    });
    session.destroy();
    expect(closed).not.toBe("still open");
  });

  it("caps connections per address", async () => {
    const open: Socket[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const s = connect(port, "127.0.0.1");
        s.on("error", () => {});
        await new Promise((r) => s.once("connect", r));
        open.push(s);
      }
      const fifth = await dribble(["GET / HTTP/1.1\r\nHost: x\r\n\r\n", ""], 100);
      expect(fifth.received).toBe("");
      expect(fifth.closedEarly).toBe(true);
    } finally {
      for (const s of open) s.destroy();
    }
    await new Promise((r) => setTimeout(r, 50));
    const again = await dribble(["GET / HTTP/1.1\r\nHost: x\r\n\r\n", "", "", ""], 100);
    expect(again.received).toMatch(/^HTTP\/1\.1 200/);
  });
});

describe("over-long URLs", () => {
  it("are answered 414 or 431, not reset (HTTP/1 and HTTP/2)", async () => {
    for (const n of [10_000, 30_000, 70_000]) {
      const r = await dribble([`GET /${"a".repeat(n)} HTTP/1.1\r\nHost: x\r\n\r\n`, "", "", ""], 50);
      expect(r.received).toMatch(/^HTTP\/1\.1 (414|431)/);
      const session = h2Connect(server.url, { maxSendHeaderBlockLength: 300_000 } as never);
      try {
        const status = await new Promise<unknown>((resolve, reject) => {
          const req = session.request({ ":path": `/${"a".repeat(n)}` });
          req.on("response", (h) => resolve(h[":status"]));
          req.on("error", reject);
          req.end();
        });
        expect(status).toBe(414);
      } finally {
        session.destroy();
      }
    }
  });
});
