import { type ChildProcess, spawn } from "node:child_process";

export interface SpawnedServer {
  name: string;
  url: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts a server process and waits for it to print `LISTENING <url>` (or a line matching
 * `ready`), so benches measure servers as separate processes from their load generators.
 */
export function spawnServer(
  name: string,
  command: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; ready?: RegExp; timeoutMs?: number } = {},
): Promise<SpawnedServer> {
  const ready = options.ready ?? /LISTENING (\S+)/;
  const child = spawn(command[0]!, command.slice(1), {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${name}: not ready after ${options.timeoutMs ?? 60_000} ms\n${log.slice(-2000)}`));
    }, options.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const m = ready.exec(log);
      if (m) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        child.stderr?.off("data", onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve({
          name,
          url: m[1] ?? "",
          pid: child.pid!,
          child,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once("exit", () => done());
              child.kill("SIGTERM");
              setTimeout(() => child.kill("SIGKILL"), 5000).unref();
            }),
        });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name}: exited with ${code} before ready\n${log.slice(-2000)}`));
    });
  });
}
