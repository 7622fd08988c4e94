/** What the status page shows, sampled once a second from the running origin. */
export interface StatusSample {
  /** Unix ms. */
  at: number;
  nodeTip: number;
  indexedTip: number;
  sealedTip: number;
  rangesPublished: number;
  reorgs: number;
  /** Cumulative RPC requests served (all protocols). */
  requests: number;
}

export interface StatusEvent {
  at: number;
  text: string;
}

/** Where samples come from (the indexer and the server); kept tiny so tests can drive it. */
export interface StatusSource {
  sample(): Omit<StatusSample, "at">;
  /** Recent notable events (reorgs, alarms), newest last. */
  events(): StatusEvent[];
}

export interface StatusHistory {
  samples: StatusSample[];
  events: StatusEvent[];
  network: string;
  startedAt: number;
}

/**
 * Keeps the last `capacity` one-second samples in a ring so the page can plot index rate, lag
 * and request rate over time without a metrics backend.
 */
export function createStatusRecorder(source: StatusSource, network: string, capacity = 600) {
  const samples: StatusSample[] = [];
  const startedAt = Date.now();
  const record = () => {
    samples.push({ at: Date.now(), ...source.sample() });
    if (samples.length > capacity) samples.splice(0, samples.length - capacity);
  };
  record();
  const timer = setInterval(record, 1000);
  timer.unref();
  return {
    history: (): StatusHistory => ({
      samples: [...samples],
      events: source.events().slice(-20),
      network,
      startedAt,
    }),
    record,
    stop: () => clearInterval(timer),
  };
}
