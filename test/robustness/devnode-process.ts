import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const main = fileURLToPath(new URL("../../origin/cli/main.ts", import.meta.url));

/**
 * A dev node in a process of its own (`lightedge devnode`), so a request that blocks its event
 * loop shows up as a hang here instead of freezing the caller's timers too.
 */
export async function startDevnodeProcess(
  blocks: number,
  seed: string,
): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [main, "devnode", "--port", "0", "--synthetic", String(blocks), "--seed", seed],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    let url: string | undefined;
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (d: string) => {
      out += d;
      url ??= /listening on (\S+)/.exec(out)?.[1];
      if (url && out.includes("ready:")) resolve(url);
    });
    child.once("exit", (code) => reject(new Error(`lightedge devnode exited with ${code}: ${out}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  };
  return { url, child, stop };
}
