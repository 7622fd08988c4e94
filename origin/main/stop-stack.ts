/**
 * What a composition started, to stop in reverse start order: each stop runs even when an earlier
 * one failed, and `close` runs them once (a second call waits for the first). It resolves with
 * what the stops threw, each also handed to `onError` as it happens; the caller decides whether
 * that is fatal.
 */
export class StopStack {
  private readonly stops: (() => Promise<void> | void)[] = [];
  private readonly onError: ((err: unknown) => void) | undefined;
  private closing: Promise<unknown[]> | undefined;

  constructor(onError?: (err: unknown) => void) {
    this.onError = onError;
  }

  push(...stops: (() => Promise<void> | void)[]): void {
    this.stops.push(...stops);
  }

  close(): Promise<unknown[]> {
    this.closing ??= this.run();
    return this.closing;
  }

  private async run(): Promise<unknown[]> {
    const errors: unknown[] = [];
    for (const stop of this.stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (err) {
        errors.push(err);
        this.onError?.(err);
      }
    }
    return errors;
  }
}
