// The dashboard's weekly trend: stacked bars of hours per foundation for each of the person's
// last weeks (local Monday to Sunday), drawn in plain SVG at the size it is shown (so no label is
// ever scaled below 12 px), a legend, each foundation's last full week against its own 4-week
// average in words, and the same numbers as a table (the chart's text alternative).
import { el } from './ui.js';

const SVG = 'http://www.w3.org/2000/svg';
/** The keys in contract order; the colours are in site.css (`.f-<key>`). */
export const KEYS = ['love', 'strength', 'mission', 'vocation', 'short_term', 'long_term'];
/** Narrowest bar slot in px (12 weeks fit a 390 px phone): more weeks than fit scroll sideways
 * inside a focusable region. */
const MIN_SLOT = 22;
const HEIGHT = 220;
const AXIS = 44;
const BOTTOM = 28;
const TOP = 12;

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** "6 h 30 min", "45 min", "0 h". */
export function hoursWords(minutes) {
  if (minutes === 0) return '0 h';
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m ? `${h} h ${m} min` : `${h} h`;
}

/** "16 Nov" for a week's Monday (`YYYY-MM-DD`, a local date: read as such, not as UTC). */
export function weekLabel(date, options = { day: 'numeric', month: 'short' }) {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(y, m - 1, d).toLocaleDateString(undefined, options);
}

/** A step for the hour axis that gives at most five lines. */
function step(maxHours) {
  for (const s of [1, 2, 5, 10, 20, 25, 50, 100]) if (maxHours / s <= 5) return s;
  return Math.ceil(maxHours / 500) * 100;
}

/**
 * The chart for `weekly` (the API's answer) at `width` px: one slot per week, at least MIN_SLOT
 * wide. Returns the SVG, labelled by `titleId` and `descId`.
 */
export function weeklyChart(weekly, width, title, { titleId, descId }) {
  const weeks = weekly.weeks;
  const slot = Math.max(MIN_SLOT, (width - AXIS) / Math.max(1, weeks.length));
  const w = Math.round(AXIS + slot * weeks.length);
  const plot = HEIGHT - TOP - BOTTOM;
  const maxHours = Math.max(1, ...weeks.map((week) => week.total_minutes / 60));
  const unit = step(maxHours);
  const top = Math.ceil(maxHours / unit) * unit;
  const y = (hours) => TOP + plot - (hours / top) * plot;
  const root = svg('svg', { class: 'weekly-chart', width: w, height: HEIGHT, viewBox: `0 0 ${w} ${HEIGHT}`,
    role: 'img', 'aria-labelledby': `${titleId} ${descId}` });
  root.append(svg('title', { id: titleId }, title));
  const busiest = weeks.reduce((best, week) => (week.total_minutes > best.total_minutes ? week : best), weeks[0]);
  root.append(svg('desc', { id: descId }, busiest && busiest.total_minutes
    ? `The busiest week began ${weekLabel(busiest.week_start)} with ${hoursWords(busiest.total_minutes)} classified. The table below the chart lists every week.`
    : 'No classified time in these weeks.'));
  for (let hours = 0; hours <= top; hours += unit) {
    root.append(svg('line', { class: 'grid', x1: AXIS, x2: w, y1: y(hours), y2: y(hours) }));
    root.append(svg('text', { class: 'axis', x: AXIS - 6, y: y(hours) + 4, 'text-anchor': 'end' }, `${hours} h`));
  }
  // A date under every bar when they are wide enough, else under every second or fourth.
  const every = slot >= 48 ? 1 : slot >= 30 ? 2 : 4;
  weeks.forEach((week, i) => {
    const x = AXIS + i * slot;
    const group = svg('g', { class: 'week', 'data-week': week.week_start, 'data-minutes': week.total_minutes });
    let base = 0;
    for (const key of KEYS) {
      const minutes = week.minutes[key] || 0;
      if (!minutes) continue;
      const hours = minutes / 60;
      group.append(svg('rect', { class: `seg f-${key}`, x: x + slot * 0.15, width: slot * 0.7,
        y: y(base + hours), height: Math.max(1, y(base) - y(base + hours)) }));
      base += hours;
    }
    if ((weeks.length - 1 - i) % every === 0) {
      // Centred under its bar, but the last one of narrow bars ends at the chart's edge (a
      // centred date would stick out past it and be cut).
      const end = i === weeks.length - 1 && slot < 48;
      group.append(svg('text', { class: 'axis', x: end ? x + slot : x + slot / 2, y: HEIGHT - 8,
        'text-anchor': end ? 'end' : 'middle' }, weekLabel(week.week_start)));
    }
    root.append(group);
  });
  return root;
}

/** The legend: a swatch and a title per foundation (HTML, so it wraps on a phone). */
export function legend(title) {
  return el('ul', { class: 'legend', 'aria-label': 'Colours' },
    KEYS.map((key) => el('li', null, el('span', { class: `swatch f-${key}`, 'aria-hidden': 'true' }), title(key))));
}

/**
 * One sentence per foundation: its last full week against the average of the four weeks before.
 * Observations, never verdicts. Needs at least six weeks (the current one is still running).
 */
export function observations(weekly, title) {
  const weeks = weekly.weeks;
  if (weeks.length < 6) return [];
  const last = weeks[weeks.length - 2];
  const before = weeks.slice(weeks.length - 6, weeks.length - 2);
  return KEYS.map((key) => {
    const now = last.minutes[key] || 0;
    const average = Math.round(before.reduce((sum, week) => sum + (week.minutes[key] || 0), 0) / 4);
    const name = title(key);
    let text;
    if (now === 0 && average === 0) text = `${name}: no time last week, nor in the four weeks before.`;
    else if (average === 0) text = `${name}: ${hoursWords(now)} last week, after none in the four weeks before.`;
    else if (now === 0) text = `${name}: no time last week, against a 4-week average of ${hoursWords(average)}.`;
    else {
      const change = now - average;
      const percent = Math.round((Math.abs(change) / average) * 100);
      text = percent < 10
        ? `${name}: ${hoursWords(now)} last week, about its 4-week average of ${hoursWords(average)}.`
        : `${name}: ${hoursWords(now)} last week, ${percent}% ${change > 0 ? 'more' : 'less'} than its 4-week average of ${hoursWords(average)}.`;
    }
    return el('li', { 'data-foundation': key }, text);
  });
}

/** The numbers behind the chart, newest week first, in hours and minutes. */
export function weeklyTable(weekly, title, captionId) {
  const head = el('tr', null, el('th', { scope: 'col', text: 'Week of' }),
    KEYS.map((k) => el('th', { scope: 'col', class: 'num', text: title(k) })),
    el('th', { scope: 'col', class: 'num', text: 'Classified' }),
    el('th', { scope: 'col', class: 'num', text: 'Unclassified' }));
  const rows = weekly.weeks.slice().reverse().map((week) => el('tr', null,
    el('th', { scope: 'row', text: weekLabel(week.week_start, { day: 'numeric', month: 'short', year: 'numeric' }) }),
    KEYS.map((k) => el('td', { class: 'num', text: week.minutes[k] ? hoursWords(week.minutes[k]) : '·' })),
    el('td', { class: 'num', text: hoursWords(week.total_minutes) }),
    el('td', { class: 'num', text: week.unmapped_minutes ? hoursWords(week.unmapped_minutes) : '·' })));
  return el('table', { id: 'weekly-table' },
    el('caption', { class: 'muted', id: captionId, text: `Hours per foundation per week (weeks begin on Monday, ${weekly.time_zone} time), newest first` }),
    el('thead', null, head), el('tbody', null, rows));
}
