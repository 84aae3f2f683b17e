import { CATEGORIES, LAYERS, STATUSES } from '../../../../shared/memory-model/src/vocabulary.ts';
import { checkedValues, field, html, splitList } from './ui.ts';

/** Categories a person filters by (the internal `turn`/`note` kinds included: they are what turns are). */
const FILTER_CATEGORIES = CATEGORIES;

export interface FilterDefaults {
  layers?: readonly string[];
  categories?: readonly string[];
  tags?: readonly string[];
}

/** Layers, categories, tags and time range: the filters `/retrieve` and `/v1/forget` share. */
export function FilterFields({ idPrefix, defaults = {} }: { idPrefix: string; defaults?: FilterDefaults }) {
  return html`
    <fieldset class="checks">
      <legend>Layers</legend>
      ${LAYERS.map(
        (layer) =>
          html`<label><input type="checkbox" name="layers" value=${layer} checked=${defaults.layers?.includes(layer)} /> ${layer}</label>`,
      )}
    </fieldset>
    <fieldset class="checks">
      <legend>Categories</legend>
      ${FILTER_CATEGORIES.map(
        (category) =>
          html`<label
            ><input type="checkbox" name="categories" value=${category} checked=${defaults.categories?.includes(category)} />
            ${category}</label
          >`,
      )}
    </fieldset>
    <div class="row">
      <label for=${`${idPrefix}-tags`}>Tags <span class="muted">(comma-separated, any of)</span></label>
      <input id=${`${idPrefix}-tags`} name="tags" value=${defaults.tags?.join(', ') ?? ''} />
    </div>
    <div class="row">
      <label for=${`${idPrefix}-range`}>Time range <span class="muted">(occurred_at)</span></label>
      <select id=${`${idPrefix}-range`} name="range">
        <option value="">any time</option>
        <option value="24h">last 24 hours</option>
        <option value="7d">last 7 days</option>
        <option value="30d">last 30 days</option>
        <option value="custom">from … to …</option>
      </select>
    </div>
    <div class="row two">
      <label>From <input type="datetime-local" name="from" /></label>
      <label>To <input type="datetime-local" name="to" /></label>
    </div>
  `;
}

export function StatusChecks({ defaults = [] }: { defaults?: readonly string[] }) {
  return html`<fieldset class="checks">
    <legend>Status</legend>
    ${STATUSES.map(
      (status) =>
        html`<label><input type="checkbox" name="status" value=${status} checked=${defaults.includes(status)} /> ${status}</label>`,
    )}
  </fieldset>`;
}

/**
 * The shared filters as the API takes them; nothing the person left empty is sent (an empty list
 * is not "no filter" to the API). `from`/`to` are sent only with the custom range.
 */
export function readFilters(form: HTMLFormElement): Record<string, unknown> {
  const filters: Record<string, unknown> = {};
  const layers = checkedValues(form, 'layers');
  const categories = checkedValues(form, 'categories');
  const tags = splitList(field(form, 'tags'));
  if (layers.length > 0) filters.memory_types = layers;
  if (categories.length > 0) filters.categories = categories;
  if (tags.length > 0) filters.tags = tags;
  const range = field(form, 'range');
  if (range === 'custom') {
    const from = field(form, 'from');
    const to = field(form, 'to');
    filters.time_range = {
      ...(from ? { from: new Date(from).toISOString() } : {}),
      ...(to ? { to: new Date(to).toISOString() } : {}),
    };
  } else if (range) {
    filters.time_range = range;
  }
  return filters;
}
