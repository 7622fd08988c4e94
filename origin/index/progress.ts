import type { IndexerStatus } from "./indexer.ts";

/**
 * One progress line for a terminal: height / node tip, a bar, blocks/s and ETA. Redrawn in place
 * with \r; the caller writes it to stderr only when stderr is a TTY.
 */
export function progressLine(s: IndexerStatus, width = 24): string {
  const target = Math.max(s.nodeTip, s.tip, 1);
  const done = Math.max(0, s.tip - s.floor + 1);
  const total = Math.max(1, target - s.floor + 1);
  const fraction = Math.min(1, done / total);
  const filled = Math.round(fraction * width);
  const bar = `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
  const rate = s.blocksPerSecond;
  const remaining = Math.max(0, s.nodeTip - s.tip);
  const eta =
    rate > 0 && remaining > 0 ? formatDuration(remaining / rate) : remaining === 0 ? "synced" : "--";
  const state = s.alarm
    ? ` ALARM: ${s.alarm}`
    : s.lastError
      ? ` (retrying: ${s.lastError.slice(0, 60)})`
      : "";
  return `height ${s.tip}/${s.nodeTip} ${bar} ${(fraction * 100).toFixed(1)}% · sealed ${s.sealedTip} · ${Math.round(rate)} blocks/s · ETA ${eta}${state}`;
}

export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}
