/** One `lightedge` subcommand. Each lives in commands/<name>.ts and is loaded on demand. */
export interface Command {
  /** One line for `lightedge --help`. */
  summary: string;
  /** Full text for `lightedge <name> --help`. */
  help: string;
  /** Runs the command; resolves to the process exit code. */
  run(argv: string[]): Promise<number>;
}

/** Thrown for bad command-line usage: printed with the command's help, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
