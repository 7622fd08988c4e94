import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { poolAddress } from "../../devnode/index.ts";

const main = fileURLToPath(new URL("../main.ts", import.meta.url));
const run = (args: string[]) =>
  spawnSync(process.execPath, [main, "devnode", ...args], { encoding: "utf8", timeout: 20_000 });

describe("lightedge devnode", () => {
  it("documents --transparent heavy and refuses it without --synthetic or with another mode", () => {
    const help = run(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("--transparent heavy");
    const bad = run(["--port", "0", "--synthetic", "10", "--seed", "s", "--transparent", "light"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("bad --transparent light");
    const alone = run([
      "--port",
      "0",
      "--corpus",
      "x",
      "--network",
      "mainnet",
      "--from",
      "1",
      "--to",
      "2",
      "--transparent",
      "heavy",
    ]);
    expect(alone.status).toBe(2);
  });

  it("serves a heavy chain whose pool addresses have transactions", { timeout: 120_000 }, async () => {
    const child = spawn(process.execPath, [
      main,
      "devnode",
      "--port",
      "0",
      "--synthetic",
      "130",
      "--seed",
      "cli-heavy",
      "--transparent",
      "heavy",
    ]);
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d) => {
          out += d;
          const m = /listening on (\S+)/.exec(out);
          // "ready" once every block is hashed (the served tip grows until then).
          if (m && out.includes("heavy transparent traffic") && out.includes("ready:")) resolve(m[1]!);
        });
        child.on("exit", (code) => reject(new Error(`devnode exited ${code}`)));
      });
      const res = await fetch(url, {
        method: "POST",
        body: JSON.stringify({
          id: 1,
          method: "getaddresstxids",
          params: [{ addresses: [poolAddress(0, "regtest")], start: 1, end: 129 }],
        }),
      });
      const { result } = (await res.json()) as { result: string[] };
      expect(result.length).toBeGreaterThan(0);
    } finally {
      child.kill("SIGTERM");
    }
  });
});
