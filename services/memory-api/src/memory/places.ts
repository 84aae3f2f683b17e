import { createRequire } from 'node:module';
import { analyzeText } from '@hindsight/text';

/** One city of the gazetteer `city-timezones` ships (7,300 cities, GeoNames-derived, English names). */
interface City {
  city_ascii: string;
  country: string;
  province: string;
}

/** Everyday names of countries besides the gazetteer's own ("the UK" for "United Kingdom"). */
const COUNTRY_NAMES: Readonly<Record<string, readonly string[]>> = {
  'United Kingdom': ['uk', 'britain', 'great britain', 'england', 'scotland', 'wales', 'northern ireland'],
  'United States of America': ['us', 'usa', 'america', 'united states', 'the states'],
  Netherlands: ['holland', 'the netherlands'],
  'Czech Republic': ['czechia'],
};

/** A place name as the rules' terms spell it: its stems, joined ("united kingdom" → "unit kingdom"). */
function placeKey(name: string): string {
  return analyzeText(name)
    .filter((t) => !t.stop)
    .map((t) => t.term)
    .join(' ');
}

let containers: ReadonlyMap<string, ReadonlySet<string>> | undefined;

/** City → the places it lies in (its province and country, by every name), built once on first use. */
function placesContaining(): ReadonlyMap<string, ReadonlySet<string>> {
  if (containers) return containers;
  const { cityMapping } = createRequire(import.meta.url)('city-timezones') as { cityMapping: readonly City[] };
  const map = new Map<string, Set<string>>();
  for (const { city_ascii, country, province } of cityMapping) {
    const city = placeKey(city_ascii);
    if (city === '') continue;
    const within = map.get(city) ?? new Set<string>();
    for (const name of [country, province, ...(COUNTRY_NAMES[country] ?? [])]) {
      const key = placeKey(name);
      if (key !== '' && key !== city) within.add(key);
    }
    map.set(city, within);
  }
  containers = map;
  return map;
}

/**
 * Whether one place lies in the other, by the gazetteer: "Madrid" and "Spain", "Leeds" and
 * "England", "Austin" and "Texas". Either way round; a place unknown to it is in nothing, and a
 * city name shared by several places is in each of them.
 */
export function placesNest(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [first, second] = [[...a].join(' '), [...b].join(' ')];
  if (first === '' || second === '' || first === second) return false;
  const map = placesContaining();
  return map.get(first)?.has(second) === true || map.get(second)?.has(first) === true;
}
