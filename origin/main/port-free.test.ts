import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../config-error.ts";
import { assertPortFree, freePort } from "./port-free.ts";

describe("the edge port check", () => {
  it("names a busy port as a usage error and passes a free one or 0", async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", r));
    const port = (busy.address() as { port: number }).port;
    await expect(assertPortFree(port, "127.0.0.1", "edge")).rejects.toThrow(ConfigError);
    await expect(assertPortFree(port, "127.0.0.1", "edge")).rejects.toThrow(`edge port ${port}`);
    await new Promise((r) => busy.close(r));
    await expect(assertPortFree(port, "127.0.0.1", "edge")).resolves.toBeUndefined();
    await expect(assertPortFree(0, "127.0.0.1", "edge")).resolves.toBeUndefined();
  });

  it("finds a loopback port nothing listens on", async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    await expect(assertPortFree(port, "127.0.0.1", "edge")).resolves.toBeUndefined();
  });
});
