// The dashboard: time per foundation over 7, 14, 30 or 90 days as a bar chart with shares
// (neglected foundations highlighted), the plain-language summary and the per-day series.
import { api } from './api.js';
import { el, fill, initPage, notice, explain, FOUNDATION_TITLES } from './ui.js';

initPage();

const SVG = 'http://www.w3.org/2000/svg';

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function hours(minutes) {
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m ? `${h} h ${m} min` : `${h} h`;
}

function chart(patterns) {
  const rowHeight = 44;
  const labelWidth = 150;
  const width = 640;
  const barWidth = width - labelWidth - 150;
  const height = rowHeight * patterns.foundations.length + 8;
  const max = Math.max(1, ...patterns.foundations.map((f) => f.minutes));
  const root = svg('svg', { class: 'chart', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': 'chart-title chart-desc' });
  root.append(svg('title', { id: 'chart-title' }, `Time per foundation, last ${patterns.days} days`));
  root.append(svg('desc', { id: 'chart-desc' }, patterns.foundations
    .map((f) => `${FOUNDATION_TITLES[f.foundation] || f.foundation}: ${hours(f.minutes)}, ${Math.round(f.share * 100)}%${f.neglected ? ', neglected' : ''}`)
    .join('; ')));
  patterns.foundations.forEach((f, i) => {
    const y = i * rowHeight + 8;
    const group = svg('g', { class: f.neglected ? 'row neglected' : 'row', 'data-foundation': f.foundation });
    group.append(svg('text', { x: 0, y: y + 20 }, FOUNDATION_TITLES[f.foundation] || f.foundation));
    group.append(svg('rect', { class: 'track', x: labelWidth, y: y + 4, width: barWidth, height: 22, rx: 4 }));
    const w = Math.round((f.minutes / max) * barWidth);
    if (w > 0) group.append(svg('rect', { class: f.neglected ? 'bar neglected' : 'bar', x: labelWidth, y: y + 4, width: w, height: 22, rx: 4 }));
    group.append(svg('text', { class: 'share', x: labelWidth + barWidth + 10, y: y + 20 },
      `${Math.round(f.share * 100)}% · ${hours(f.minutes)}`));
    if (f.neglected) group.append(svg('text', { class: 'flag', x: labelWidth + 6, y: y + 40, 'font-size': 12 }, 'neglected'));
    root.append(group);
  });
  return root;
}

function daily(patterns) {
  const keys = patterns.foundations.map((f) => f.foundation);
  const head = el('tr', null, el('th', { scope: 'col', text: 'Date' }),
    keys.map((k) => el('th', { scope: 'col', class: 'num', text: FOUNDATION_TITLES[k] || k })),
    el('th', { scope: 'col', class: 'num', text: 'Total' }));
  const rows = patterns.daily.slice().reverse().map((day) => {
    const total = keys.reduce((sum, k) => sum + (day.minutes[k] || 0), 0);
    return el('tr', null, el('th', { scope: 'row', text: day.date }),
      keys.map((k) => el('td', { class: 'num', text: day.minutes[k] ? String(day.minutes[k]) : '·' })),
      el('td', { class: 'num', text: String(total) }));
  });
  return el('table', { id: 'daily-table' },
    el('caption', { class: 'muted', text: 'Minutes per foundation per day (UTC), newest first' }),
    el('thead', null, head), el('tbody', null, rows));
}

async function show(days) {
  for (const button of document.querySelectorAll('#periods button')) {
    button.setAttribute('aria-pressed', String(button.dataset.days === String(days)));
  }
  try {
    const patterns = await api.get(`/integration/work-patterns?days=${days}`);
    document.getElementById('total').textContent = `${hours(patterns.total_minutes)} logged in the last ${patterns.days} days`;
    document.getElementById('summary').textContent = patterns.summary;
    fill(document.getElementById('chart'), chart(patterns));
    fill(document.getElementById('daily'), daily(patterns));
    notice('');
  } catch (error) {
    notice(explain(error), 'error');
  }
}

for (const button of document.querySelectorAll('#periods button')) {
  button.addEventListener('click', () => {
    history.replaceState(null, '', `?days=${button.dataset.days}`);
    show(Number(button.dataset.days));
  });
}
const asked = Number(new URLSearchParams(location.search).get('days'));
show([7, 14, 30, 90].includes(asked) ? asked : 14);
