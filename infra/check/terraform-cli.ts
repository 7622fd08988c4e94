// Runs the local `terraform` binary for checks that need no providers: `fmt -check`, and
// `console` over copies of provider-free files (never init, plan or apply).
import { spawnSync } from "node:child_process";

const env = {
  ...process.env,
  CHECKPOINT_DISABLE: "1",
  TF_IN_AUTOMATION: "1",
  TF_CLI_CONFIG_FILE: "/dev/null",
};

/** Whether a `terraform` binary is on PATH. */
export function hasTerraform(): boolean {
  return spawnSync("terraform", ["version"], { env, stdio: "ignore" }).status === 0;
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function terraform(args: string[], cwd: string, input?: string): CliResult {
  const r = spawnSync("terraform", args, { cwd, env, input, encoding: "utf8", timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Evaluates expressions in `dir` with `terraform console` and returns their values, one console
 * run per expression (piped, console prints only the last of several lines). Each is wrapped in
 * base64encode(jsonencode(...)) so console's HCL string quoting cannot alter it.
 */
export function consoleEval(dir: string, vars: Record<string, string>, exprs: string[]): unknown[] {
  const args = ["console", ...Object.entries(vars).flatMap(([k, v]) => ["-var", `${k}=${v}`])];
  return exprs.map((expr) => {
    const r = terraform(args, dir, `base64encode(jsonencode(${expr}))\n`);
    const line = r.stdout.split("\n").find((l) => /^"[A-Za-z0-9+/=]*"$/.test(l.trim()));
    if (r.status !== 0 || line === undefined) {
      throw new Error(`terraform console failed (${r.status}):\n${r.stderr || r.stdout}`);
    }
    return JSON.parse(Buffer.from(line.trim().slice(1, -1), "base64").toString("utf8"));
  });
}
