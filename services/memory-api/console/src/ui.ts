import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.ts';

export { html };

export interface Loaded<T> {
  data?: T;
  error?: unknown;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when `deps` change (and on `reload`); a stale answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) => current && setState({ error, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

/** A button's action: busy while it runs, its error kept to show. */
export function useAction<A extends unknown[], T>(run: (...args: A) => Promise<T>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const act = async (...args: A): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await run(...args);
    } catch (caught) {
      setError(caught);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { act, busy, error, clearError: () => setError(undefined) };
}

/** The API's own message (and a validation reply's per-field messages), never a stack. */
export function ErrorNote({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const apiError = error instanceof ApiError ? error : undefined;
  const details = Array.isArray(apiError?.details)
    ? (apiError.details as Array<{ path?: string; message?: string }>)
    : [];
  return html`<div class="error" role="alert">
    <strong>${apiError ? `${apiError.status || 'error'} ${apiError.code}` : 'error'}:</strong>
    ${' '}${error instanceof Error ? error.message : String(error)}
    ${
      details.length > 1 &&
      html`<ul>
      ${details.map((d) => html`<li><code>${d.path}</code>: ${d.message}</li>`)}
    </ul>`
    }
  </div>`;
}

export function Loading({ what }: { what: Loaded<unknown> }) {
  if (what.error) return html`<${ErrorNote} error=${what.error} />`;
  if (what.loading && what.data === undefined) return html`<p class="muted" aria-live="polite">Loading…</p>`;
  return null;
}

export function Section({
  title,
  children,
  actions,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return html`<section class="panel">
    <header class="panel-head"><h2>${title}</h2>${actions}</header>
    ${children}
  </section>`;
}

export function Badge({ kind, children }: { kind?: string; children: ComponentChildren }) {
  return html`<span class=${`badge ${kind ? `badge-${kind}` : ''}`}>${children}</span>`;
}

/** `2026-12-01 14:03` in the viewer's time zone; the ISO time on hover. */
export function When({ iso }: { iso: string | null | undefined }) {
  if (!iso) return html`<span class="muted">—</span>`;
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  const text = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
  return html`<time datetime=${iso} title=${iso}>${text}</time>`;
}

export interface Bar {
  label: string;
  value: number;
  title?: string;
}

/** A small bar chart (SVG, no library): one bar per item, the value above it. */
export function BarChart({ bars, unit, label }: { bars: readonly Bar[]; unit: string; label: string }) {
  const max = Math.max(1, ...bars.map((b) => b.value));
  // Bars share about 640 units of width; the drawing scales evenly, so its text keeps its shape.
  const step = Math.max(22, Math.floor(640 / Math.max(bars.length, 1)));
  const width = Math.max(bars.length * step, 120);
  const height = 120;
  return html`<figure class="chart">
    <svg viewBox=${`0 0 ${width} ${height + 34}`} role="img" aria-label=${label}>
      ${bars.map((bar, i) => {
        const h = Math.round((bar.value / max) * height);
        const x = i * step + 3;
        const middle = x + (step - 6) / 2;
        return html`<g>
          <title>${bar.title ?? `${bar.label}: ${bar.value} ${unit}`}</title>
          <rect x=${x} y=${height - h + 12} width=${step - 6} height=${Math.max(h, bar.value > 0 ? 1 : 0)} class="bar" />
          ${bar.value > 0 && html`<text x=${middle} y=${height - h + 9} class="bar-value">${bar.value}</text>`}
          <text x=${middle} y=${height + 26} class="bar-label">${bar.label}</text>
        </g>`;
      })}
    </svg>
    <figcaption>${label}</figcaption>
  </figure>`;
}

export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

/** Reads a form field by name. */
export function field(form: HTMLFormElement, name: string): string {
  const element = form.elements.namedItem(name);
  return element && 'value' in element ? String(element.value).trim() : '';
}

export function checkedValues(form: HTMLFormElement, name: string): string[] {
  return [...form.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`)].map((input) => input.value);
}
