import { toConnectError } from "../../proto/errors.ts";
import { beforeDeadline, type Deadline, orDeadline } from "../rpc/deadline.ts";
import type { EdgeServices } from "../services.ts";
import { type OpenedOriginSegment, writeOriginSegment } from "../tail/origin-segment.ts";
import { endOfStream } from "../wire/end-stream.ts";
import type { WireProtocol } from "../wire/protocol.ts";
import type { ResponseSink } from "../wire/sink.ts";
import { createChainCheck } from "./chain-check.ts";
import type { Segment } from "./plan.ts";
import {
  type SealedRead,
  type SegmentSource,
  startSealedRead,
  writeSealedSegment,
} from "./sealed-segment.ts";

export interface StreamJob {
  s: EdgeServices;
  sink: ResponseSink;
  segments: Segment[];
  opened: Map<number, OpenedOriginSegment>;
  source: SegmentSource;
  protocol: WireProtocol;
  rpc: string;
  ascending: boolean;
  network: string;
  rangeSize: number;
  /** The client's deadline: past it, the stream ends with DeadlineExceeded in its end bytes. */
  deadline: Deadline;
  /** An error to end with after every segment is sent (a range past the tip: OutOfRange). */
  endError?: unknown;
}

/**
 * Sends every segment in order, then the end-of-stream bytes. The next sealed read is started
 * while the current one is sent, so storage latency overlaps with sending (2 open reads at most,
 * within the 6 connections a Worker may hold). A failure mid-stream ends the stream with the
 * error in the trailer / end-stream frame.
 */
export async function streamSegments(job: StreamJob): Promise<void> {
  const { s, sink, segments, opened, source } = job;
  const signal = job.deadline.signal;
  const check = createChainCheck(job.ascending);
  const prepare = (i: number): Promise<SealedRead> | undefined => {
    const seg = segments[i];
    if (seg?.kind !== "sealed") return undefined;
    const read = s.metas
      .meta(job.network, job.rangeSize, seg.index)
      .then((meta) => startSealedRead(s.reader, meta, source, seg.from, seg.to));
    read.catch(() => {});
    return read;
  };
  let next = prepare(0);
  try {
    for (let i = 0; i < segments.length; i++) {
      // Between segments (a native pipe cannot be stopped and still end the stream with a status).
      signal.throwIfAborted();
      const current = next;
      next = prepare(i + 1);
      if (current !== undefined)
        await writeSealedSegment(sink, await beforeDeadline(signal, current), source, check, signal);
      else await beforeDeadline(signal, writeOriginSegment(sink, opened.get(i)!, check));
    }
    if (job.endError !== undefined) throw job.endError;
    await sink.write(endOfStream(job.protocol));
    await sink.close();
  } catch (err) {
    void next?.then((r) => r.object.body.cancel()).catch(() => {});
    for (const o of opened.values()) void o.rest.return(undefined);
    // Past the deadline, whatever failed failed because of it (an aborted read or pipe).
    const error = orDeadline(signal, err);
    try {
      await sink.write(endOfStream(job.protocol, toConnectError(job.rpc, error, s.log)));
      await sink.close();
    } catch {
      await sink.abort(error).catch(() => {});
    }
  } finally {
    job.deadline.dispose();
  }
}
