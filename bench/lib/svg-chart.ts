/** A horizontal bar chart as a standalone SVG (no dependencies, readable in any browser). */
export function barChartSvg(title: string, unit: string, bars: { label: string; value: number }[]): string {
  const width = 720;
  const rowHeight = 26;
  const left = 260;
  const height = 40 + bars.length * rowHeight + 20;
  const max = Math.max(1e-9, ...bars.map((b) => (Number.isFinite(b.value) ? b.value : 0)));
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const rows = bars
    .map((b, i) => {
      const y = 40 + i * rowHeight;
      const w = Number.isFinite(b.value) ? ((width - left - 90) * b.value) / max : 0;
      return [
        `<text x="${left - 8}" y="${y + 16}" text-anchor="end">${esc(b.label)}</text>`,
        `<rect x="${left}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowHeight - 8}" fill="#3b82f6"/>`,
        `<text x="${left + w + 6}" y="${y + 16}">${formatNumber(b.value)} ${esc(unit)}</text>`,
      ].join("");
    })
    .join("\n");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="white"/>
<text x="12" y="24" font-size="16" font-weight="bold">${esc(title)}</text>
${rows}
</svg>
`;
}

export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Math.abs(x) >= 1000) return Math.round(x).toLocaleString("en-US");
  return String(Math.round(x * 1000) / 1000);
}
