// The results as a picture: one horizontal bar per "share of ..." figure (a hot path as a share of its
// baseline measured in the same run), with the target drawn where the issue sets one. Plain SVG, no dependency.
import type { BenchResult } from './types.ts';

/** Targets from issue 15, by metric name and bench name. */
const TARGETS: Array<{ metric: string; name: RegExp; pct: number }> = [
  { metric: 'share of floor', name: /^(list 100|add a tracking)/, pct: 70 },
  { metric: 'share of raw', name: /^refresh engine/, pct: 80 },
  { metric: 'share of plain POST', name: /^webhooks/, pct: 15 },
];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function shareChart(benches: Array<{ results: BenchResult[] }>): string | null {
  const bars: Array<{ label: string; pct: number; target?: number }> = [];
  for (const b of benches)
    for (const r of b.results)
      for (const [metric, value] of Object.entries(r.metrics)) {
        // "share of bare" (a route that does nothing) is in the tables; the chart shows the baselines that do the same work.
        if (!metric.startsWith('share of') || metric === 'share of bare' || typeof value !== 'string' || !value.endsWith('%')) continue;
        const pct = Number(value.slice(0, -1));
        if (!Number.isFinite(pct)) continue;
        const target = TARGETS.find((t) => t.metric === metric && t.name.test(r.name))?.pct;
        const short = (t: string) => t.replace(/\s*\(.*$/, '');
        bars.push({ label: `${short(r.name)} · ${short(r.setup ?? '')} · ${metric.replace('share of ', 'of ')}`, pct, target });
      }
  if (bars.length === 0) return null;
  const rowH = 26;
  const labelW = 580;
  const barW = 360;
  const max = Math.max(100, ...bars.map((b) => b.pct));
  const x = (p: number) => labelW + (barW * p) / max;
  const h = 40 + bars.length * rowH + 20;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${labelW + barW + 70}" height="${h}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="22" font-size="14" font-weight="600">Each hot path as a share of its baseline in the same run (dashed: target)</text>`,
  ];
  bars.forEach((b, i) => {
    const y = 40 + i * rowH;
    const met = b.target === undefined || b.pct >= b.target;
    out.push(
      `<text x="${labelW - 8}" y="${y + 16}" text-anchor="end">${esc(b.label.length > 100 ? `${b.label.slice(0, 99)}…` : b.label)}</text>`,
    );
    out.push(
      `<rect x="${labelW}" y="${y + 4}" width="${Math.max(1, x(b.pct) - labelW).toFixed(1)}" height="16" fill="${met ? '#2f855a' : '#c05621'}"/>`,
    );
    out.push(`<text x="${(x(b.pct) + 4).toFixed(1)}" y="${y + 16}">${b.pct}%</text>`);
    if (b.target !== undefined)
      out.push(
        `<line x1="${x(b.target).toFixed(1)}" x2="${x(b.target).toFixed(1)}" y1="${y + 1}" y2="${y + 23}" stroke="#1a202c" stroke-dasharray="3,2"/>`,
      );
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
