import { createServer } from "node:net";
import { ConfigError } from "../config-error.ts";

/**
 * Fails fast when a fixed port is taken. wrangler dev only says so in its output, and keeps running
 * (startEdgeDev reads it there), so `npm start` checks the edge port before it starts anything
 * else, rather than seconds later with the origin already up. Port 0 (any free port) always passes.
 */
export async function assertPortFree(port: number, host: string, what: string): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        err.code === "EADDRINUSE"
          ? new ConfigError(
              `${what} port ${port} on ${host} is in use (pick another, or 0 for any free port)`,
            )
          : err,
      ),
    );
    server.listen(port, host, () => server.close(() => resolve()));
  });
}

/**
 * A port nothing listens on now, on loopback: for a child process told its port (wrangler dev's
 * `--port` and `--inspector-port`, a node's RPC port). Another process may take it before the child
 * binds it, so callers that pick one retry on a taken port (edge-dev.ts).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
