import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";

/** How a supervised child ended on its own. */
export interface ChildExit {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A process tree that stops as one: every child runs in its own process group (so its own
 * children — workerd under wrangler — are reached too), and the first child that exits on its
 * own stops all the others. `failed` resolves with that child; the caller then exits non-zero.
 * If this process exits first (a crash included), every group is killed on the way out.
 */
export interface Supervisor {
  spawn(name: string, command: string, args: readonly string[], options?: SpawnOptions): ChildProcess;
  /** Resolves when a child exits without `stop()` having been called (never after `stop()`). */
  readonly failed: Promise<ChildExit>;
  /** SIGTERM to every group, SIGKILL to what is left after `graceMs`; resolves once all exited. */
  stop(): Promise<void>;
}

export interface SupervisorOptions {
  /** How long children get to exit after SIGTERM (default 5000 ms). */
  graceMs?: number;
}

export function createSupervisor(options: SupervisorOptions = {}): Supervisor {
  const graceMs = options.graceMs ?? 5000;
  const children = new Map<ChildProcess, string>();
  let stopping: Promise<void> | undefined;
  let fail!: (exit: ChildExit) => void;
  const failed = new Promise<ChildExit>((resolve) => (fail = resolve));

  // Runs even after an uncaught exception; only synchronous work is possible here.
  const onProcessExit = () => {
    for (const child of children.keys()) killGroup(child, "SIGKILL");
  };
  process.on("exit", onProcessExit);

  const stop = () => {
    stopping ??= (async () => {
      await Promise.all(
        [...children.keys()].map(async (child) => {
          if (child.pid === undefined) return;
          if (!running(child)) {
            // The leader is gone; whatever it started in its group (workerd) must not outlive it.
            killGroup(child, "SIGTERM");
            await new Promise((r) => setTimeout(r, Math.min(graceMs, 500)));
            killGroup(child, "SIGKILL");
            return;
          }
          const exited = new Promise<void>((r) => child.once("exit", () => r()));
          killGroup(child, "SIGTERM");
          const timer = setTimeout(() => killGroup(child, "SIGKILL"), graceMs);
          await exited;
          clearTimeout(timer);
          // The leader is gone; anything it left in its group goes too.
          killGroup(child, "SIGKILL");
        }),
      );
      process.off("exit", onProcessExit);
    })();
    return stopping;
  };

  return {
    spawn(name, command, args, spawnOptions = {}) {
      // detached: a new process group (setsid), so a signal to -pid reaches grandchildren.
      const child = spawn(command, args, { ...spawnOptions, detached: true });
      children.set(child, name);
      const onEnd = (code: number | null, signal: NodeJS.Signals | null) => {
        if (stopping) return;
        fail({ name, code, signal });
        void stop();
      };
      child.once("exit", onEnd);
      child.once("error", () => onEnd(null, null));
      return child;
    },
    failed,
    stop,
  };
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}
