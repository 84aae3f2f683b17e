/**
 * Pieces of the self-contained HTML reports every eval kind writes: one page style, escaping, and
 * inline SVG charts (no scripts, no external assets, so a report opens anywhere and can be mailed).
 */

export const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/** A share as reports print it: 0.6123 → "61.2". */
export const pct = (value: number): string => (value * 100).toFixed(1);

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;color:#111827;padding:0 1rem}
table{border-collapse:collapse;margin:1rem 0}td,th{padding:.25rem .6rem;border-bottom:1px solid #e5e7eb;text-align:right}
td:nth-child(-n+2),th:nth-child(-n+2){text-align:left}th{background:#f9fafb}code{background:#f3f4f6;padding:0 .25rem}
figure{margin:1rem 0}figcaption{color:#4b5563;font-size:12px}`;

/** A whole report page around `body` (already HTML). */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>
${STYLE}
</style></head><body>
${body}
</body></html>
`;
}

export interface ChartSeries {
  label: string;
  colour: string;
}

export interface BarGroup {
  label: string;
  /** One value per series, in the order of `series`; 0..max. */
  values: number[];
}

/** Series colours shared by every report: hindsight blue, the baseline red, then others. */
export const SERIES_COLOURS = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed'] as const;

/**
 * Grouped vertical bars (one group per metric or scope, one bar per system) with the value printed
 * above each bar. Values are shares (0..1) shown as percentages unless `format` says otherwise.
 */
export function groupedBarChart(options: {
  groups: readonly BarGroup[];
  series: readonly ChartSeries[];
  title: string;
  max?: number;
  format?: (value: number) => string;
}): string {
  const { groups, series, title } = options;
  const max = options.max ?? 1;
  const format = options.format ?? ((v: number) => `${pct(v)}%`);
  const barWidth = 26;
  const gap = 6;
  const groupWidth = series.length * (barWidth + gap) + 28;
  const pad = { left: 48, right: 16, top: 28, bottom: 56 };
  const plotH = 220;
  const width = pad.left + pad.right + Math.max(groups.length, 1) * groupWidth + 140;
  const height = pad.top + plotH + pad.bottom;
  const y = (v: number) => pad.top + (1 - Math.min(Math.max(v / max, 0), 1)) * plotH;
  const parts: string[] = [`<text x="${pad.left}" y="16" font-size="13" font-weight="600">${escapeHtml(title)}</text>`];
  for (let t = 0; t <= 4; t++) {
    const v = (t / 4) * max;
    parts.push(
      `<line x1="${pad.left}" x2="${pad.left + groups.length * groupWidth}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e7eb"/>`,
      `<text x="${pad.left - 6}" y="${y(v) + 4}" text-anchor="end" font-size="10">${escapeHtml(format(v))}</text>`,
    );
  }
  groups.forEach((group, g) => {
    const x0 = pad.left + g * groupWidth + 14;
    group.values.forEach((value, s) => {
      const x = x0 + s * (barWidth + gap);
      const colour = series[s]?.colour ?? '#6b7280';
      const top = y(value);
      parts.push(
        `<rect x="${x}" y="${top}" width="${barWidth}" height="${pad.top + plotH - top}" fill="${colour}"><title>${escapeHtml(`${series[s]?.label ?? ''} ${group.label}: ${format(value)}`)}</title></rect>`,
        `<text x="${x + barWidth / 2}" y="${top - 4}" text-anchor="middle" font-size="9">${escapeHtml(format(value))}</text>`,
      );
    });
    parts.push(
      `<text x="${x0 + (series.length * (barWidth + gap)) / 2}" y="${pad.top + plotH + 16}" text-anchor="middle" font-size="11">${escapeHtml(group.label)}</text>`,
    );
  });
  series.forEach((s, i) => {
    const lx = pad.left + groups.length * groupWidth + 16;
    const ly = pad.top + 8 + i * 18;
    parts.push(
      `<rect x="${lx}" y="${ly - 9}" width="12" height="12" fill="${s.colour}"/>`,
      `<text x="${lx + 18}" y="${ly + 1}" font-size="11">${escapeHtml(s.label)}</text>`,
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(title)}">${parts.join('')}</svg>`;
}

/**
 * Values of several populations as dots on one horizontal axis (one row per population), e.g. the
 * top score of answerable and of unanswerable questions: whether a score threshold separates them.
 */
export function stripChart(options: {
  rows: ReadonlyArray<{ label: string; colour: string; values: readonly number[] }>;
  title: string;
  min?: number;
  max?: number;
  /** A vertical marker, e.g. the score floor. */
  marker?: { value: number; label: string };
}): string {
  const { rows, title } = options;
  const min = options.min ?? 0;
  const max = options.max ?? 1;
  const pad = { left: 170, right: 24, top: 30, bottom: 36 };
  const plotW = 520;
  const rowH = 34;
  const width = pad.left + plotW + pad.right;
  const height = pad.top + rows.length * rowH + pad.bottom;
  const x = (v: number) => pad.left + ((Math.min(Math.max(v, min), max) - min) / (max - min || 1)) * plotW;
  const parts: string[] = [`<text x="8" y="16" font-size="13" font-weight="600">${escapeHtml(title)}</text>`];
  for (let t = 0; t <= 10; t += 2) {
    const v = min + ((max - min) * t) / 10;
    parts.push(
      `<line x1="${x(v)}" x2="${x(v)}" y1="${pad.top}" y2="${pad.top + rows.length * rowH}" stroke="#e5e7eb"/>`,
      `<text x="${x(v)}" y="${height - 14}" text-anchor="middle" font-size="10">${v.toFixed(2)}</text>`,
    );
  }
  rows.forEach((row, r) => {
    const cy = pad.top + r * rowH + rowH / 2;
    parts.push(
      `<text x="${pad.left - 8}" y="${cy + 4}" text-anchor="end" font-size="11">${escapeHtml(`${row.label} (${row.values.length})`)}</text>`,
    );
    row.values.forEach((value, i) => {
      // A small deterministic vertical jitter keeps equal values visible.
      const jitter = ((i * 7) % 11) - 5;
      parts.push(
        `<circle cx="${x(value).toFixed(1)}" cy="${cy + jitter}" r="3" fill="${row.colour}" fill-opacity="0.6"><title>${value.toFixed(3)}</title></circle>`,
      );
    });
  });
  if (options.marker) {
    const mx = x(options.marker.value);
    parts.push(
      `<line x1="${mx}" x2="${mx}" y1="${pad.top - 6}" y2="${pad.top + rows.length * rowH}" stroke="#111827" stroke-dasharray="4 3"/>`,
      `<text x="${mx + 4}" y="${pad.top - 8}" font-size="10">${escapeHtml(options.marker.label)}</text>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(title)}">${parts.join('')}</svg>`;
}

/**
 * A plain-text table for the terminal: a header, a rule and the rows, the first two columns
 * (scope, system) left-aligned and the figures right-aligned.
 */
export function textTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const render = (cells: readonly string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [render(header), render(widths.map((w) => '-'.repeat(w))), ...rows.map(render)];
}
