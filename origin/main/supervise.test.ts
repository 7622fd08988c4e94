import { readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createSupervisor } from "./supervise.ts";

/** A node child that starts a grandchild (as wrangler starts workerd) and prints both pids. */
const parentScript = `
const { spawn } = require("node:child_process");
const g = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
process.stdout.write(process.pid + " " + g.pid + "\\n");
setInterval(() => {}, 1000);
`;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function pidsOf(child: import("node:child_process").ChildProcess): Promise<number[]> {
  const line = await new Promise<string>((resolve) =>
    child.stdout!.once("data", (d: Buffer) => resolve(String(d))),
  );
  return line.trim().split(" ").map(Number);
}

async function gone(pids: number[]) {
  for (let i = 0; i < 100 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
  return !pids.some(alive);
}

describe("the process-tree supervisor", () => {
  it("stops every child and grandchild when one child dies, and reports which", async () => {
    const s = createSupervisor({ graceMs: 2000 });
    const a = s.spawn("a", process.execPath, ["-e", parentScript], { stdio: ["ignore", "pipe", "ignore"] });
    const b = s.spawn("b", process.execPath, ["-e", parentScript], { stdio: ["ignore", "pipe", "ignore"] });
    const pids = [...(await pidsOf(a)), ...(await pidsOf(b))];
    expect(pids.every(alive)).toBe(true);
    process.kill(pids[0]!, "SIGKILL"); // a dies; its grandchild would be orphaned
    const exit = await s.failed;
    expect(exit).toEqual({ name: "a", code: null, signal: "SIGKILL" });
    await s.stop();
    expect(await gone(pids)).toBe(true);
  });

  it("stops the whole tree on request without reporting a failure", async () => {
    const s = createSupervisor({ graceMs: 2000 });
    const a = s.spawn("a", process.execPath, ["-e", parentScript], { stdio: ["ignore", "pipe", "ignore"] });
    const pids = await pidsOf(a);
    let failed = false;
    void s.failed.then(() => (failed = true));
    await s.stop();
    expect(await gone(pids)).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(failed).toBe(false);
  });
});

describe("lightedge edge's wrangler command line", () => {
  it("carries no secret: it goes in a 0600 .dev.vars beside the config", async () => {
    const { edgeDevArgs, writeDevConfig } = await import("./edge-dev.ts");
    const secret = "s3cr3t-0123456789abcdef";
    const config = writeDevConfig(false, { ORIGIN_SECRET: secret });
    const args = edgeDevArgs(config, { port: 8787, inspectorPort: 9230 }, { quiet: true }, [
      "ORIGIN_URL:http://127.0.0.1:1",
    ]);
    expect(args.join(" ")).not.toContain(secret);
    expect(args.join(" ")).not.toContain("ORIGIN_SECRET");
    const vars = `${config.dir}/.dev.vars`;
    expect(readFileSync(vars, "utf8")).toBe(`ORIGIN_SECRET='${secret}'\n`);
    expect(statSync(vars).mode & 0o777).toBe(0o600);
    expect(statSync(config.dir).mode & 0o777).toBe(0o700);
    expect(readFileSync(config.path, "utf8")).not.toContain("r2_buckets");
  });
});
