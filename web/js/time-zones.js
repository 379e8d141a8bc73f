// The account's time-zone picker: every zone the browser knows, each named by its city and
// country with its UTC offset today ("Berlin, Germany · UTC+01:00"), the browser's own zone
// first, and a search by city, country, zone name or offset that narrows the list.
import { ZONE_COUNTRY } from './zone-countries.js';

let regions = null;

/** The country's name in the browser's language ("Germany" for DE), or ''. */
function countryName(code) {
  if (!code) return '';
  try {
    regions = regions || new Intl.DisplayNames(undefined, { type: 'region' });
    return regions.of(code) || '';
  } catch {
    return '';
  }
}

/** "UTC+01:00" (today, daylight saving included), "UTC+00:00" for UTC itself. */
export function offsetOf(zone, now = new Date()) {
  try {
    const part = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
      .formatToParts(now).find((p) => p.type === 'timeZoneName');
    const offset = part ? part.value.replace(/^GMT/, '') : '';
    return `UTC${offset || '+00:00'}`;
  } catch {
    return '';
  }
}

/** Lower case, without accents, underscores as spaces: how names are compared. */
function folded(text) {
  return text.normalize('NFD').replace(/\p{Diacritic}/gu, '').replaceAll('_', ' ').toLowerCase();
}

/**
 * One choice per zone of `names`: `{zone, label, words}`, `label` as shown, `words` what a search
 * looks in. `browser` (the browser's zone) comes first, marked; the rest by label.
 */
export function zoneChoices(names, browser, now = new Date()) {
  const choices = names.map((zone) => {
    const city = (zone.split('/').pop() || zone).replaceAll('_', ' ');
    const country = countryName(ZONE_COUNTRY.get(zone));
    const offset = offsetOf(zone, now);
    const place = country && country !== city ? `${city}, ${country}` : city;
    const mark = zone === browser ? ' — this browser' : '';
    const label = `${place} · ${offset} (${zone.replaceAll('_', ' ')})${mark}`;
    return { zone, label, words: folded(`${zone} ${place} ${offset}`) };
  });
  const first = choices.filter((c) => c.zone === browser);
  const rest = choices.filter((c) => c.zone !== browser).sort((a, b) => a.label.localeCompare(b.label));
  return [...first, ...rest];
}

/** The choices whose words hold every word of `query` (all of them for an empty query). */
export function matching(choices, query) {
  const words = folded(query).split(/\s+/).filter(Boolean);
  return choices.filter((choice) => words.every((word) => choice.words.includes(word)));
}
