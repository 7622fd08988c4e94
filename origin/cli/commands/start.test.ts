import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** Every descendant of `pid` (from /proc): npm → sh → node → wrangler → workerd. */
function descendants(pid: number): Map<number, string> {
  const children = new Map<number, number[]>();
  const names = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [, name, rest] = /^\d+ \((.*)\) (.*)$/s.exec(stat)!;
      const ppid = Number(rest!.split(" ")[1]);
      names.set(Number(entry), name!);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {} // the process ended while we looked
  }
  const found = new Map<number, string>();
  const todo = [pid];
  while (todo.length > 0) {
    for (const c of children.get(todo.pop()!) ?? []) {
      found.set(c, names.get(c)!);
      todo.push(c);
    }
  }
  return found;
}

/** Alive = has a /proc entry that is not a zombie. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function waitForOutput(child: ChildProcess, pattern: RegExp, ms: number): Promise<string> {
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${ms} ms; output:\n${out}`)), ms);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (pattern.test(out)) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.once("exit", (code) => reject(new Error(`npm start exited (${code}) early; output:\n${out}`)));
  });
}

describe("npm start", () => {
  const data = mkdtempSync(join(tmpdir(), "lightedge-start-"));
  afterAll(() => rmSync(data, { recursive: true, force: true }));

  it("runs dev node, origin and edge with no configuration, answers on the edge, and Ctrl-C leaves no process behind", async () => {
    const args = ["start", "--", "--edge-port", "0", "--origin-port", "0", "--admin-port", "0"];
    args.push("--data", data, "--blocks", "400", "--quiet");
    const npm = spawn("npm", args, {
      cwd: repoRoot,
      env: {
        ...process.env,
        PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
        LIGHTEDGE_NODE_URL: "",
      },
      stdio: ["ignore", "pipe", "inherit"],
      detached: true, // its own process group: whatever happens, the finally below can end it all
    });
    const exited = new Promise<number | null>((r) => npm.once("exit", (code) => r(code)));
    let tree = new Map<number, string>();
    try {
      const out = await waitForOutput(npm, /ready — Ctrl-C stops everything/, 90_000);
      expect(out).toContain('SYNTHETIC chain (not Zcash mainnet): 400 blocks, seed "lightedge"');
      const edgeUrl = /edge, gRPC-web \+ Connect:\s+(\S+)/.exec(out)![1]!;
      const example = /try:\n\s+(curl .*)\n/.exec(out)![1]!;
      expect(example).toContain(`${edgeUrl}/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetLatestBlock`);
      const res = await fetch(`${edgeUrl}/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetLatestBlock`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { height: string }).height).toBe("399");
      expect(Number(/sealed to (\d+)/.exec(out)![1])).toBeGreaterThanOrEqual(299);

      tree = descendants(npm.pid!);
      expect([...tree.values()]).toContain("workerd");
      // SIGINT to the lightedge process alone (a terminal's Ctrl-C reaches the whole group; a
      // supervisor signals one process): its shutdown must take wrangler and workerd down with it.
      const lightedge = [...tree.keys()].find((pid) => /(main\.ts|lightedge\.js)\0start/.test(cmdline(pid)));
      expect(lightedge).toBeDefined();
      process.kill(lightedge!, "SIGINT");
      expect(await Promise.race([exited, sleep(20_000).then(() => "still running")])).toBe(0);
      await expect.poll(() => [...tree.keys()].filter(alive), { timeout: 10_000 }).toEqual([]);
    } finally {
      try {
        process.kill(-npm.pid!, "SIGKILL");
      } catch {} // already gone: the good case
      for (const pid of tree.keys()) if (alive(pid)) process.kill(pid, "SIGKILL");
    }
  }, 120_000);

  it("exits non-zero with nothing left behind when wrangler dies, naming it; no secret on any command line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lightedge-start-die-"));
    const main = join(repoRoot, "origin/cli/main.ts");
    const args = [main, "start", "--edge-port", "0", "--origin-port", "0", "--admin-port", "off"];
    args.push("--data", dir, "--blocks", "150", "--quiet");
    const cli = spawn(process.execPath, args, {
      cwd: repoRoot,
      env: { ...process.env, LIGHTEDGE_NODE_URL: "" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stderr = "";
    cli.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => cli.once("exit", (code) => r(code)));
    let tree = new Map<number, string>();
    try {
      await waitForOutput(cli, /ready — Ctrl-C stops everything/, 90_000);
      tree = descendants(cli.pid!);
      expect([...tree.values()]).toContain("workerd");
      const wrangler = [...tree.keys()].find((pid) => cmdline(pid).includes("wrangler.js"));
      expect(wrangler).toBeDefined();
      // The origin's secret reaches wrangler in .dev.vars beside its config (origin/main/edge-dev.ts).
      const config = cmdline(wrangler!).split("\0")[cmdline(wrangler!).split("\0").indexOf("-c") + 1]!;
      const secret = /^ORIGIN_SECRET='(.+)'$/m.exec(
        readFileSync(join(dirname(config), ".dev.vars"), "utf8"),
      )![1]!;
      expect(secret.length).toBeGreaterThanOrEqual(32);
      for (const pid of [cli.pid!, ...tree.keys()]) expect(cmdline(pid)).not.toContain(secret);

      process.kill(wrangler!, "SIGKILL");
      expect(await Promise.race([exited, sleep(30_000).then(() => "still running")])).toBe(1);
      expect(stderr).toMatch(/lightedge: wrangler exited \(SIGKILL\)/);
      await expect.poll(() => [...tree.keys()].filter(alive), { timeout: 10_000 }).toEqual([]);
    } finally {
      try {
        process.kill(-cli.pid!, "SIGKILL");
      } catch {} // already gone: the good case
      for (const pid of tree.keys()) if (alive(pid)) process.kill(pid, "SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
