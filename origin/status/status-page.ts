import type { StatusHistory, StatusSample } from "./status-recorder.ts";

/**
 * The origin's status page, rendered server-side as one HTML document with inline SVG plots (no
 * framework, no build step); it reloads itself every 2 s.
 */
export function renderStatusPage(h: StatusHistory): string {
  const last = h.samples.at(-1);
  const rates = perSecond(h.samples, (s) => s.indexedTip);
  const reqRates = perSecond(h.samples, (s) => s.requests);
  const lag = h.samples.map((s) => ({ at: s.at, v: Math.max(0, s.nodeTip - s.indexedTip) }));
  const cards: [string, string][] = last
    ? [
        ["node tip", fmt(last.nodeTip)],
        ["indexed tip", fmt(last.indexedTip)],
        ["sealed tip", fmt(last.sealedTip)],
        ["lag (blocks)", fmt(Math.max(0, last.nodeTip - last.indexedTip))],
        ["index rate (blocks/s)", fmt(rates.at(-1)?.v ?? 0)],
        ["ranges published", fmt(last.rangesPublished)],
        ["reorgs", fmt(last.reorgs)],
        ["requests/s", fmt(reqRates.at(-1)?.v ?? 0)],
      ]
    : [];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
<title>lightedge origin — ${esc(h.network)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:24px;color:#111;background:#fafafa}
h1{font-size:20px;margin:0 0 4px} .sub{color:#666;margin-bottom:16px}
.cards{display:grid;grid-template-columns:repeat(4,minmax(150px,1fr));gap:10px;margin-bottom:18px}
.card{background:#fff;border:1px solid #ddd;border-radius:8px;padding:10px}
.card b{display:block;font-size:22px} .card span{color:#555;font-size:12px}
.plots{display:grid;grid-template-columns:repeat(3,1fr);gap:12px}
.plot{background:#fff;border:1px solid #ddd;border-radius:8px;padding:8px}
.plot h2{font-size:13px;margin:0 0 6px;color:#333} ul{font-size:13px}
</style></head><body>
<h1>lightedge origin · ${esc(h.network)}</h1>
<div class="sub">up ${fmt(Math.round((Date.now() - h.startedAt) / 1000))} s · ${h.samples.length} samples · refreshes every 2 s</div>
<div class="cards">${cards.map(([k, v]) => `<div class="card"><b>${v}</b><span>${esc(k)}</span></div>`).join("")}</div>
<div class="plots">
${plot("index rate (blocks/s)", rates)}
${plot("lag behind node (blocks)", lag)}
${plot("requests/s", reqRates)}
</div>
<h2 style="font-size:15px">recent events</h2>
<ul>${h.events.length ? h.events.map((e) => `<li>${new Date(e.at).toISOString()} — ${esc(e.text)}</li>`).join("") : "<li>none</li>"}</ul>
</body></html>
`;
}

type Point = { at: number; v: number };

function perSecond(samples: StatusSample[], pick: (s: StatusSample) => number): Point[] {
  const out: Point[] = [];
  for (let i = 1; i < samples.length; i++) {
    const dt = (samples[i]!.at - samples[i - 1]!.at) / 1000;
    if (dt > 0)
      out.push({ at: samples[i]!.at, v: Math.max(0, (pick(samples[i]!) - pick(samples[i - 1]!)) / dt) });
  }
  return out;
}

/** A line plot as inline SVG. */
function plot(title: string, points: Point[]): string {
  const w = 320;
  const h = 120;
  const max = Math.max(1, ...points.map((p) => p.v));
  const t0 = points[0]?.at ?? 0;
  const span = Math.max(1, (points.at(-1)?.at ?? 1) - t0);
  const path = points
    .map(
      (p, i) =>
        `${i ? "L" : "M"}${((w * (p.at - t0)) / span).toFixed(1)},${(h - 4 - ((h - 8) * p.v) / max).toFixed(1)}`,
    )
    .join("");
  return `<div class="plot"><h2>${esc(title)} · max ${fmt(max)}</h2><svg width="100%" viewBox="0 0 ${w} ${h}" preserveAspectRatio="none" role="img" aria-label="${esc(title)}"><rect width="${w}" height="${h}" fill="#f4f7fb"/><path d="${path}" fill="none" stroke="#2563eb" stroke-width="2"/></svg></div>`;
}

function fmt(x: number): string {
  return Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "–";
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
