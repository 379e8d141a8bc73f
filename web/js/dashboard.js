// The dashboard: time per foundation over 7, 14, 30 or 90 days as a bar chart with shares
// (neglected foundations highlighted), how much of it is classified, the plain-language summary,
// the unclassified time (a foundation chosen for a group adds the rule that classifies it), the
// person's rules (move up or down, delete after a confirmation), the weekly trend (weekly.js)
// and the per-day series. Days and weeks are the person's, in their time zone.
import { api, ApiError } from './api.js';
import { el, fill, initPage, notice, explain, at, when, act, refuse, accept, FOUNDATION_TITLES, timeZoneSettled } from './ui.js';
import { weeklyChart, legend, observations, weeklyTable } from './weekly.js';

initPage();

const SVG = 'http://www.w3.org/2000/svg';
/** At most this many unclassified groups are shown, the largest. */
const UNMAPPED_LIMIT = 100;
/** A rule's kind of match, in words. */
const MATCH_WORDS = {
  label_equals: 'Label is',
  label_contains: 'Label contains',
  tag: 'Tagged',
  external_task_id_prefix: 'Tracker id starts with',
};

/** The six foundations in order, as `GET /integration/foundations` names them (ui.js's until then). */
let foundations = Object.entries(FOUNDATION_TITLES).map(([key, title]) => ({ key, title, description: '' }));
let days = 14;
/** How many weeks the trend shows (12 to 104). */
let weeks = 12;
/** The latest weekly answer, drawn again when the width changes. */
let lastWeekly = null;
/** The latest load; an older one that answers later is dropped. */
let loading = null;

function title(key) {
  const found = foundations.find((f) => f.key === key);
  return found ? found.title : FOUNDATION_TITLES[key] || key;
}

function quoted(text) {
  return `“${text}”`;
}

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

/**
 * The bars per foundation, drawn at `shown` px wide (never scaled down, so the 14 px labels stay
 * 14 px on a phone), each in its foundation's colour (site.css `.f-<key>`, as in the weekly
 * chart) with its name beside it. Wide: the name, the bar, then the share in one line. Narrow
 * (a phone): the name and the share on a line above a bar of the whole width, so nothing
 * reaches past the chart's edge.
 */
function chart(patterns, shown = 640) {
  const width = Math.max(200, Math.round(shown));
  const narrow = width < 480;
  const rowHeight = narrow ? 60 : 44;
  const labelWidth = narrow ? 0 : 150;
  const barWidth = narrow ? width : width - labelWidth - 150;
  const barTop = narrow ? 24 : 4;
  const height = rowHeight * patterns.foundations.length + 8;
  const max = Math.max(1, ...patterns.foundations.map((f) => f.minutes));
  const root = svg('svg', { class: 'chart', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': 'chart-title chart-desc' });
  root.append(svg('title', { id: 'chart-title' }, `Classified time per foundation, last ${patterns.days} days`));
  root.append(svg('desc', { id: 'chart-desc' }, patterns.foundations
    .map((f) => `${title(f.foundation)}: ${hours(f.minutes)}, ${Math.round(f.share * 100)}%${f.neglected ? ', neglected' : ''}`)
    .join('; ')));
  patterns.foundations.forEach((f, i) => {
    const y = i * rowHeight + 8;
    const group = svg('g', { class: f.neglected ? 'row neglected' : 'row', 'data-foundation': f.foundation, 'data-minutes': f.minutes });
    group.append(svg('text', { x: 0, y: y + (narrow ? 14 : 20) }, title(f.foundation)));
    group.append(svg('rect', { class: 'track', x: labelWidth, y: y + barTop, width: barWidth, height: narrow ? 18 : 22, rx: 4 }));
    const w = Math.round((f.minutes / max) * barWidth);
    if (w > 0) group.append(svg('rect', { class: `bar f-${f.foundation}`, x: labelWidth, y: y + barTop, width: w, height: narrow ? 18 : 22, rx: 4 }));
    // Anchored at the chart's right edge, so however long it is it never reaches past it.
    group.append(svg('text', { class: 'share', x: width, y: y + (narrow ? 14 : 20), 'text-anchor': 'end' },
      `${Math.round(f.share * 100)}% · ${hours(f.minutes)}`));
    if (f.neglected) group.append(svg('text', { class: 'flag', x: labelWidth + 6, y: y + (narrow ? 56 : 40), 'font-size': 12 }, 'neglected'));
    root.append(group);
  });
  return root;
}

function daily(patterns) {
  const keys = patterns.foundations.map((f) => f.foundation);
  const head = el('tr', null, el('th', { scope: 'col', text: 'Date' }),
    keys.map((k) => el('th', { scope: 'col', class: 'num', text: title(k) })),
    el('th', { scope: 'col', class: 'num', text: 'Total' }));
  const rows = patterns.daily.slice().reverse().map((day) => {
    const total = keys.reduce((sum, k) => sum + (day.minutes[k] || 0), 0);
    return el('tr', null, el('th', { scope: 'row', text: day.date }),
      keys.map((k) => el('td', { class: 'num', text: day.minutes[k] ? String(day.minutes[k]) : '·' })),
      el('td', { class: 'num', text: String(total) }));
  });
  return el('table', { id: 'daily-table' },
    el('caption', { class: 'muted', text: `Classified minutes per foundation per day (${patterns.time_zone} time), newest first` }),
    el('thead', null, head), el('tbody', null, rows));
}

/** "12 h 30 min logged in the last 14 days: 10 h 25 min classified (83%), 2 h 5 min not yet." */
function totals(patterns) {
  const logged = patterns.total_minutes + patterns.unmapped_minutes;
  const parts = [el('span', { id: 'logged', 'data-minutes': String(logged),
    text: `${hours(logged)} logged in the last ${patterns.days} days` })];
  if (logged > 0) {
    // Rounded down, as the check-ins do: 99.6% is not yet "100% classified".
    const percent = Math.floor(patterns.coverage * 100);
    // One sentence with both totals: the bars and the summary count the classified time only.
    parts.push(': ', el('span', {
      id: 'coverage', 'data-coverage': String(patterns.coverage), 'data-unmapped': String(patterns.unmapped_minutes),
      text: `${hours(patterns.total_minutes)} classified (${percent}%)`
        + (patterns.unmapped_minutes ? `, ${hours(patterns.unmapped_minutes)} not yet.` : '.'),
    }));
  } else {
    parts.push('.');
  }
  return parts;
}

/** What a group is called, and the rule that classifies it (null when there is nothing to match). */
function describeGroup(group) {
  const label = group.task_label && group.task_label.trim() ? group.task_label : null;
  if (label) return { name: label, match: { label_equals: group.task_label } };
  if (group.tags.length) return { name: group.tags.join(', '), match: { tag: group.tags[0] } };
  return { name: '(no label)', match: null };
}

function day(ts) {
  return at(ts, { dateStyle: 'medium' });
}

/** Text as rules compare it: case-insensitive on NFC (docs/api.md). */
function folded(text) {
  return String(text || '').normalize('NFC').toLowerCase();
}

/** Whether the rule `match` would classify `group` (the service's matching, for the counts). */
function reaches(match, group) {
  const [kind, text] = Object.entries(match)[0];
  const label = folded(group.task_label);
  if (kind === 'label_equals') return label === folded(text);
  if (kind === 'label_contains') return label.includes(folded(text));
  if (kind === 'tag') return group.tags.some((tag) => folded(tag) === folded(text));
  return false;
}

/** The part of a label before its first separator ("Radio repair" of "Radio repair: Grundig"). */
function labelPrefix(label) {
  const found = /^(.+?)\s*(?::|\s[-–/|]\s)\s*\S/.exec(label || '');
  return found && found[1].trim().length >= 2 ? found[1].trim() : null;
}

/**
 * The rules a person might write for `group`: its own (the label, else its first tag), then
 * each of its tags and its label's prefix when they reach other groups too. Each with what it
 * would classify among `groups` (the unclassified time of the window shown).
 */
function rulesFor(group, groups, own) {
  const candidates = [own, ...group.tags.map((tag) => ({ tag }))];
  const prefix = labelPrefix(group.task_label);
  if (prefix) candidates.push({ label_contains: prefix });
  const seen = new Set();
  return candidates.flatMap((match, i) => {
    const key = JSON.stringify(Object.entries(match)[0].map(folded));
    if (seen.has(key)) return [];
    seen.add(key);
    const reached = groups.filter((g) => reaches(match, g));
    if (i > 0 && reached.length < 2) return [];
    return [{ match, groups: reached.length,
      entries: reached.reduce((sum, g) => sum + g.entries, 0), minutes: reached.reduce((sum, g) => sum + g.minutes, 0) }];
  });
}

/** What a rule classifies, as the result says it: “Weekly sync”, everything tagged “focus”. */
function reachWords(match, name) {
  if (match.label_equals !== undefined) return quoted(name);
  if (match.tag !== undefined) return `everything tagged ${quoted(match.tag)}`;
  return `every label containing ${quoted(match.label_contains)}`;
}

/** The choice of rule for a group that shares a tag or a label prefix with others, with counts. */
function ruleChoice(rules, index) {
  return el('fieldset', { class: 'classify-by' }, el('legend', { text: `Classify by (counts of the last ${days} days)` }),
    rules.map((rule, i) => el('label', { class: 'check' },
      el('input', { type: 'radio', name: `classify-by-${index}`, value: String(i), checked: i === 0 }),
      el('span', { text: `${ruleWords(rule)}: ${rule.groups === 1 ? '' : `${rule.groups} groups, `}`
        + `${rule.entries === 1 ? '1 entry' : `${rule.entries} entries`}, ${hours(rule.minutes)}` }))));
}

function unmappedItem(group, index, groups) {
  const { name, match } = describeGroup(group);
  const facts = [hours(group.minutes), group.entries === 1 ? '1 entry' : `${group.entries} entries`, `last ${day(group.last_occurred_at)}`];
  if (match && match.label_equals && group.tags.length) facts.push(`tags: ${group.tags.join(', ')}`);
  let control;
  const rules = match ? rulesFor(group, groups, match) : [];
  const choice = rules.length > 1 ? ruleChoice(rules, index) : null;
  if (match) {
    const select = el('select', { class: 'classify-foundation', id: `classify-${index}`, 'aria-label': `Foundation for ${quoted(name)}` },
      el('option', { value: '', text: 'Choose a foundation' }),
      foundations.map((f) => el('option', { value: f.key, text: f.title })));
    const button = el('button', { type: 'submit', class: 'secondary', text: 'Classify', 'aria-label': `Classify ${quoted(name)}` });
    control = el('form', { class: 'classify' }, select, button);
    control.addEventListener('submit', (event) => {
      event.preventDefault();
      const picked = choice ? choice.querySelector('input:checked') : null;
      const chosen = rules[picked ? Number(picked.value) : 0].match;
      classify({ name, what: reachWords(chosen, name) }, chosen, select, button);
    });
  } else {
    control = el('span', { class: 'hint', text: 'No label or tag to match: give these entries one in your tracker.' });
  }
  return el('li', { class: 'unmapped-group', 'data-minutes': String(group.minutes) },
    el('div', { class: 'row' },
      el('span', null, el('strong', { class: 'group-name', text: name }), el('br'),
        el('span', { class: 'muted group-facts', text: facts.join(' · ') }),
        match && match.tag ? [el('br'), el('span', { class: 'hint', text: `Classifies everything tagged ${quoted(match.tag)}.` })] : null),
      choice ? null : control),
    choice, choice ? control : null);
}

function renderUnmapped(groups, patterns) {
  const logged = patterns.total_minutes + patterns.unmapped_minutes;
  fill(document.getElementById('unmapped'), groups.length ? groups.map((group, i) => unmappedItem(group, i, groups))
    : el('li', { class: 'muted', id: 'unmapped-empty', text: logged
      ? `Nothing to classify in the last ${patterns.days} days: all the time logged has a foundation.`
      : `Nothing was logged in the last ${patterns.days} days.` }));
  const more = document.getElementById('unmapped-more');
  more.hidden = groups.length < UNMAPPED_LIMIT;
  more.textContent = `The ${UNMAPPED_LIMIT} largest groups are shown; the rest appear as you classify these.`;
}

function ruleWords(rule) {
  const [kind, text] = Object.entries(rule.match || {})[0] || ['', ''];
  return `${MATCH_WORDS[kind] || kind} ${quoted(text)}`;
}

/** A rule's id the page can put in a selector (the service's are UUIDs). */
function ruleSelector(id) {
  return `#rules li.rule[data-id="${CSS.escape(id)}"]`;
}

function ruleItem(rule, index, count) {
  const words = ruleWords(rule);
  const named = `rule ${rule.position}, ${words} to ${title(rule.foundation)}`;
  const up = el('button', { type: 'button', class: 'secondary move-up', text: 'Move up', 'aria-label': `Move up: ${named}`, disabled: index === 0 });
  const down = el('button', { type: 'button', class: 'secondary move-down', text: 'Move down', 'aria-label': `Move down: ${named}`, disabled: index === count - 1 });
  const remove = el('button', { type: 'button', class: 'secondary delete-rule', text: 'Delete', 'aria-label': `Delete ${named}` });
  up.addEventListener('click', () => move(rule, rule.position - 1, 'up', up));
  down.addEventListener('click', () => move(rule, rule.position + 1, 'down', down));

  const questionId = `delete-rule-q-${rule.id}`;
  const yes = el('button', { type: 'button', class: 'danger confirm-delete', text: 'Yes, delete it' });
  const confirmBox = el('div', { class: 'card delete-confirm', hidden: true, role: 'group', 'aria-labelledby': questionId },
    el('p', { id: questionId, text: `Delete rule ${rule.position} (${words} to ${title(rule.foundation)})? The time it classified goes back to the other rules, or to Unclassified.` }),
    el('div', { class: 'actions' }, yes,
      el('button', { type: 'button', class: 'secondary', text: 'Keep it',
        onclick: () => { confirmBox.hidden = true; remove.focus(); } })));
  remove.addEventListener('click', () => { confirmBox.hidden = false; yes.focus(); });
  yes.addEventListener('click', () => deleteRule(rule, words, yes));

  return el('li', { class: 'rule', 'data-id': rule.id, 'data-position': String(rule.position) },
    el('div', { class: 'row' },
      el('span', null, el('span', { class: 'rule-position', text: `${rule.position}. ` }),
        el('strong', { class: 'rule-match', text: words }), ' → ',
        el('span', { class: 'rule-foundation', text: title(rule.foundation) })),
      el('span', { class: 'actions' }, up, down, remove)),
    confirmBox);
}

function renderRules(rules) {
  fill(document.getElementById('rules'), rules.length ? rules.map((rule, i) => ruleItem(rule, i, rules.length))
    : el('li', { class: 'muted', id: 'no-rules', text: 'No rules yet. Choose a foundation for an unclassified group above and its rule shows here.' }));
}

function renderHelp() {
  // flatMap: a list of [dt, dd] pairs would be appended as text ("[object HTMLElement],…").
  fill(document.getElementById('foundation-help'), foundations.flatMap((f) => [
    el('dt', { text: f.title }), el('dd', { text: f.description || '' })]));
}

/** The latest work patterns, drawn again when the width changes. */
let lastPatterns = null;

/** The bars per foundation at the width their card has now (at most 640 px). */
function drawBars() {
  if (!lastPatterns) return;
  const area = document.getElementById('chart');
  fill(area, chart(lastPatterns, Math.min(640, area.clientWidth || 640)));
}

/** The weekly trend at the width it has now. */
function drawWeekly() {
  if (!lastWeekly) return;
  const area = document.getElementById('weekly');
  const width = Math.max(280, area.clientWidth);
  fill(area, weeklyChart(lastWeekly, width, `Classified hours per foundation, last ${lastWeekly.weeks.length} weeks`,
    { titleId: 'weekly-chart-title', descId: 'weekly-chart-desc' }));
}

function renderWeekly(weekly) {
  lastWeekly = weekly;
  drawWeekly();
  fill(document.getElementById('weekly-legend'), legend(title));
  const notes = observations(weekly, title);
  const list = document.getElementById('weekly-notes');
  fill(list, notes);
  list.hidden = notes.length === 0;
  fill(document.getElementById('weekly-numbers'), weeklyTable(weekly, title, 'weekly-caption'));
}

/**
 * Loads and shows everything of the current window: totals, bars, table, unclassified time and
 * rules. Resolves to false when a newer load took over; rejects with the API's error.
 */
async function refresh() {
  const sequence = (loading = Symbol('load'));
  const [patterns, groups, rules, weekly] = await Promise.all([
    api.get(`/integration/work-patterns?days=${days}`),
    api.get(`/integration/unmapped?days=${days}&limit=${UNMAPPED_LIMIT}`),
    api.get('/integration/rules'),
    api.get(`/integration/work-patterns/weekly?weeks=${weeks}`),
  ]);
  if (sequence !== loading) return false;
  renderWeekly(weekly);
  fill(document.getElementById('total'), totals(patterns));
  // The window every figure of this page counts (the weekly chart names its own weeks).
  document.getElementById('window').textContent = `Every figure on this page but the weekly chart counts the last ${patterns.days} days: `
    + `from ${when(patterns.from)} to now, in ${patterns.time_zone} time.`;
  document.getElementById('summary').textContent = patterns.summary;
  lastPatterns = patterns;
  drawBars();
  renderUnmapped(groups, patterns);
  renderRules(rules);
  fill(document.getElementById('daily'), daily(patterns));
  return true;
}

/** How long the page waits for a re-classification before showing the totals as they are. */
const RECLASSIFY_PATIENCE_MS = 60000;

/**
 * Waits until the re-classification a rule change queued is done, so the totals shown after it
 * include it; when it takes more than a moment, says how far it is on `status` (beside the control).
 */
async function reclassified(status) {
  const started = Date.now();
  for (;;) {
    const progress = await api.get('/integration/reclassification');
    if (progress.state !== 'running') return '';
    const waited = Date.now() - started;
    if (waited > RECLASSIFY_PATIENCE_MS) return ' Your time is still being classified again; the totals will catch up.';
    if (waited > 1000) {
      const of = progress.total ? ` ${progress.done.toLocaleString()} of ${progress.total.toLocaleString()} entries` : '';
      status.say(`Classifying your time again with your rules…${of}`);
    }
    await new Promise((resolve) => { setTimeout(resolve, 200); });
  }
}

/** Puts the keyboard on `target`, unless the person has moved it somewhere that still exists. */
function keepFocus(target) {
  const now = document.activeElement;
  if (now && now !== document.body && now.isConnected) return;
  if (target) target.focus();
}

/** The row of `item` (a status line goes after it, inside the list item). */
function rowOf(item) {
  return item ? item.querySelector('.row') : null;
}

/** A rule that is gone (deleted in another tab): say so beside the rules as they are now. */
async function gone(error, status) {
  if (!(error instanceof ApiError && error.status === 404)) return null;
  // The change made elsewhere re-classifies the time it touched: show it once that is done.
  await reclassified(status);
  await refresh();
  keepFocus(document.getElementById('rules-title'));
  return { text: 'That rule is not there any more (changed in another tab?); here are your rules as they are now.',
    anchor: document.getElementById('rules') };
}

async function classify({ name, what }, match, select, button) {
  const foundation = select.value;
  if (!foundation) {
    refuse(select, `Choose a foundation for ${quoted(name)} first.`);
    return;
  }
  accept(select);
  const item = select.closest('li');
  const index = [...document.querySelectorAll('#unmapped li.unmapped-group')].indexOf(item);
  select.disabled = true;
  await act(button, {
    key: 'classify', anchor: rowOf(item), progress: `Adding the rule for ${what}…`,
    done: async (later) => {
      if (!(await refresh())) return null;
      // The group has left the panel: the keyboard goes on to the group that took its place,
      // and the result is said there, where the person is looking.
      const left = [...document.querySelectorAll('#unmapped li.unmapped-group')];
      const next = left[Math.min(index, left.length - 1)];
      keepFocus((next && next.querySelector('select')) || document.getElementById('unmapped-title'));
      return { text: `A new rule classifies ${what} as ${title(foundation)}.${later}`,
        anchor: rowOf(next) || document.getElementById('unmapped') };
    },
  }, async (status) => {
    try {
      await api.post('/integration/rules', { match, foundation });
    } finally {
      select.disabled = false;
    }
    return reclassified(status);
  });
  if (select.isConnected && !select.disabled && document.activeElement === document.body) button.focus();
}

async function move(rule, position, direction, button) {
  const words = ruleWords(rule);
  await act(button, {
    key: 'rule', anchor: rowOf(button.closest('li.rule')), progress: `Moving ${words}…`,
    done: async (later) => {
      if (!(await refresh())) return null;
      // The keyboard stays with the rule it moved: on the same button, or the other one at an end.
      const item = document.querySelector(ruleSelector(rule.id));
      if (item) {
        const same = item.querySelector(`button.move-${direction}`);
        keepFocus(same && !same.disabled ? same : item.querySelector(`button.move-${direction === 'up' ? 'down' : 'up'}`));
      }
      return { text: `${words} is now rule ${position}.${later}`, anchor: rowOf(item) || document.getElementById('rules') };
    },
    failure: gone,
  }, async (status) => {
    await api.put(`/integration/rules/${encodeURIComponent(rule.id)}`, { match: rule.match, foundation: rule.foundation, position });
    return reclassified(status);
  });
}

async function deleteRule(rule, words, button) {
  const item = button.closest('li.rule');
  const neighbour = item.nextElementSibling || item.previousElementSibling;
  const neighbourId = neighbour && neighbour.dataset.id;
  await act(button, {
    key: 'rule', progress: `Deleting the rule ${words}…`,
    done: async (later) => {
      if (!(await refresh())) return null;
      const other = neighbourId && document.querySelector(ruleSelector(neighbourId));
      keepFocus((other && other.querySelector('button:not(:disabled)')) || document.getElementById('rules-title'));
      return { text: `The rule ${words} to ${title(rule.foundation)} is deleted; your time is classified again without it.${later}`,
        anchor: rowOf(other) || document.getElementById('rules') };
    },
    failure: gone,
  }, async (status) => {
    await api.delete(`/integration/rules/${encodeURIComponent(rule.id)}`);
    return reclassified(status);
  });
}

/** Shows the window of `wanted` days; `clear` empties the notice area once it has loaded. */
async function show(wanted, clear = true) {
  days = wanted;
  for (const button of document.querySelectorAll('#periods button')) {
    button.setAttribute('aria-pressed', String(button.dataset.days === String(days)));
  }
  try {
    if ((await refresh()) && clear) notice('');
  } catch (error) {
    notice(explain(error), 'error');
  }
}

async function main() {
  // The first sign-in in this browser may be setting the time zone: days and weeks wait for it.
  await timeZoneSettled;
  const askedWeeks = Number(new URLSearchParams(location.search).get('weeks'));
  if ([12, 26, 52, 104].includes(askedWeeks)) weeks = askedWeeks;
  document.getElementById('weekly-weeks').value = String(weeks);
  let named = true;
  try {
    foundations = await api.get('/integration/foundations');
  } catch (error) {
    // The page still works with the titles it knows; the error stays shown.
    notice(explain(error), 'error');
    named = false;
  }
  renderHelp();
  const asked = Number(new URLSearchParams(location.search).get('days'));
  await show([7, 14, 30, 90].includes(asked) ? asked : 14, named);
}

/** The page's address for the current choices, so a reload or a shared link keeps them. */
function remember() {
  history.replaceState(null, '', `?days=${days}${weeks === 12 ? '' : `&weeks=${weeks}`}`);
}

for (const button of document.querySelectorAll('#periods button')) {
  button.addEventListener('click', () => {
    days = Number(button.dataset.days);
    remember();
    show(days);
  });
}
document.getElementById('weekly-weeks').addEventListener('change', (event) => {
  weeks = Number(event.target.value);
  remember();
  show(days);
});
let resizing = null;
window.addEventListener('resize', () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => { drawBars(); drawWeekly(); }, 150);
});
main();
