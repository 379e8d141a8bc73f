// Small DOM helpers shared by the pages. Text always goes in through textContent.
// Also the one place for feedback where the person is looking: `act` runs an action that waits
// and says how it goes beside the control that started it (a live region there, never the top of
// the page), and `checkText`/`countChars` refuse a blank or too-long text beside its field.
import { api, signOut, ApiError } from './api.js';
import { initMenu } from './menu.js';

/** `el('p', {class: 'x'}, 'text', child)`: attributes set one by one, strings as text nodes. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name === 'text') node.textContent = value;
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : value);
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Empties `node` and fills it with `children`. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** Shows `text` in the page's notice area (role=status or alert): for what no control started. */
export function notice(text, kind = 'info') {
  const area = document.getElementById('notice');
  if (!area) return;
  area.className = kind === 'error' ? 'notice error' : 'notice';
  area.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  area.textContent = text || '';
}

/** The words to show for an API error. */
export function explain(error) {
  if (error && error.message) return error.message;
  return 'Something went wrong. Please try again.';
}

/** The account's time zone once read (see `adoptTimeZone`): times are shown in it, as days are. */
let personZone = null;

/** Shows times in `zone` from now on (the account page, after the person changes it). */
export function showTimesIn(zone) {
  personZone = zone || null;
}

/** A moment in the person's locale and time zone (the browser's until the account's is read). */
export function at(ts, options) {
  if (!ts) return '';
  return new Date(ts).toLocaleString(undefined, personZone ? { ...options, timeZone: personZone } : options);
}

/** "22 Nov 2026, 10:00" in the person's locale and time zone. */
export function when(ts) {
  return at(ts, { dateStyle: 'medium', timeStyle: 'short' });
}

export const FIELD_TITLES = {
  love_summary: 'What you love',
  strength_summary: 'Your strengths',
  mission_summary: 'Your mission',
  vocation_summary: 'Your vocation',
  overlap_narrative: 'Where they meet',
  near_term_goal_summary: 'Near-term goal (6-12 months)',
  long_term_goal_summary: 'Long-term goal (3-5 years)',
};
export const FIELDS = Object.keys(FIELD_TITLES);

export const FOUNDATION_TITLES = {
  love: 'Love',
  strength: 'Strength',
  mission: 'Mission',
  vocation: 'Vocation',
  // The profile's names for the two goals (FIELD_TITLES), so a foundation and its goal read alike.
  short_term: 'Near-term goal',
  long_term: 'Long-term goal',
};

/** Set once this browser has offered its time zone, or the person chose one on the account page. */
export const TIME_ZONE_KEY = 'ds-time-zone-set';

/** The browser's IANA time zone ("Europe/Berlin"), or null. */
export function browserTimeZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || null;
  } catch {
    return null;
  }
}

/**
 * At the first sign-in in this browser, the account takes the browser's time zone, so days and
 * weeks end at the person's midnight: only while it is still the default (UTC) and the person has
 * not chosen one here. Never throws; resolves when done (pages that show days wait for it).
 */
async function adoptTimeZone() {
  try {
    const settings = await api.get('/api/me/settings', { signIn: false });
    showTimesIn(settings.time_zone);
    if (localStorage.getItem(TIME_ZONE_KEY)) return;
    const zone = browserTimeZone();
    if (zone && settings.time_zone === 'UTC' && zone !== 'UTC' && zone !== 'Etc/UTC') {
      await api.put('/api/me/settings', { time_zone: zone }, { signIn: false });
      showTimesIn(zone);
    }
    localStorage.setItem(TIME_ZONE_KEY, '1');
  } catch {
    // Not signed in, or the service did not answer: tried again on the next page.
  }
}

/** Resolves once the account's time zone is settled and read (see `adoptTimeZone`). */
export let timeZoneSettled = Promise.resolve();

/**
 * Wires the phone menu and the sign-out button (the service marks the current page's link, see
 * web/layout.html) and, on a signed-in page (one with the sign-out button), settles the
 * account's time zone.
 */
export function initPage() {
  initMenu();
  const out = document.getElementById('sign-out');
  if (out) {
    out.addEventListener('click', () => signOut());
    timeZoneSettled = adoptTimeZone();
  }
}

// ---- Feedback beside the control ----------------------------------------------------------

/** After this long without an answer, the status line says the wait is normal. */
export const SLOW_MS = 10000;
const SLOW_WORDS = {
  model: 'Still working — small models can take a while.',
  service: 'Still working — this is taking longer than usual.',
};

/** Status lines by key, kept across re-renders so a result can follow its control. */
const statuses = new Map();

/**
 * The status line `key` (element id `status-<key>`), placed just after `anchor`: a polite live
 * region for progress and success, an alert for errors. Created once, moved when the page has
 * re-drawn the control it belongs to.
 */
export function statusBeside(anchor, key) {
  let node = statuses.get(key);
  if (!node) {
    node = el('div', { class: 'status', id: `status-${key}` },
      el('p', { class: 'status-line', role: 'status', 'aria-live': 'polite' }),
      el('div', { class: 'status-error', role: 'alert', tabindex: '-1' }));
    statuses.set(key, node);
  }
  if (anchor && anchor.nextElementSibling !== node) anchor.after(node);
  const [line, alert] = node.children;
  return {
    node,
    /** Progress or success, read out politely; clears an earlier error. */
    say(text) {
      alert.replaceChildren();
      line.textContent = text || '';
      // What the action added above it (a chat turn, say) may have pushed the line out of view.
      if (text) node.scrollIntoView({ block: 'nearest' });
    },
    /** An error in plain words, with a retry button when trying again may help; takes the focus. */
    fail(text, retry) {
      line.textContent = '';
      fill(alert, el('p', { text }), retry
        ? el('button', { type: 'button', class: 'secondary retry', text: 'Try again', onclick: retry }) : null);
      alert.focus();
    },
    clear() {
      line.textContent = '';
      alert.replaceChildren();
    },
  };
}

/** Whether `error` may go away by itself: the model, the network or a busy service. */
export function transient(error) {
  if (!(error instanceof ApiError)) return true; // fetch rejects with a TypeError when offline
  return error.code === 'coach_unavailable' || [429, 502, 503, 504].includes(error.status);
}

/** Plain words for a failure that no page explains better. */
export function failureWords(error) {
  if (!(error instanceof ApiError)) {
    return 'The service could not be reached (is the connection down?). Nothing was changed.';
  }
  if (error.code === 'coach_unavailable') {
    return 'The language model did not answer: it may be down or overloaded. Nothing was changed.';
  }
  if (error.status === 429) return 'Too many requests just now. Nothing was changed; wait a moment.';
  if ([502, 503, 504].includes(error.status)) {
    return 'The service is busy or did not answer in time. Nothing was changed.';
  }
  return explain(error);
}

/**
 * Runs `action` for `control` (disabled meanwhile) and reports beside it, on status line `key`:
 * `progress` while it waits, after SLOW_MS a note that the wait is normal (`slow`: 'model' or
 * 'service'), then what `done(result)` returns (a text, or `{text, anchor}` when the page re-drew
 * the control; null says nothing; it may be async). A failure is shown there in plain words
 * (`failure(error)` may word it, the same way, else `failureWords`), with "Try again" when it may
 * pass, and takes the focus. `action(status)` may say how far it is with `status.say`.
 * Resolves to the action's result, or undefined when it failed.
 */
export async function act(control, options, action) {
  const { key, progress = '', slow = 'service', done = () => null, failure = () => null } = options;
  const anchor = options.anchor || control.closest('.actions') || control;
  const status = statusBeside(anchor, key);
  const focused = document.activeElement === control;
  control.disabled = true;
  status.say(progress);
  const timer = setTimeout(() => status.say(`${progress ? progress + ' ' : ''}${SLOW_WORDS[slow]}`), SLOW_MS);
  try {
    const result = await action(status);
    const said = await done(result);
    const where = said && typeof said === 'object' ? statusBeside(said.anchor, key) : status;
    where.say(said && typeof said === 'object' ? said.text : said || '');
    return result;
  } catch (error) {
    const retry = transient(error)
      ? () => { if (control.isConnected) act(control, options, action); } : null;
    const said = await failure(error, status);
    const where = said && typeof said === 'object' ? statusBeside(said.anchor, key) : status;
    const words = (said && typeof said === 'object' ? said.text : said) || failureWords(error);
    where.fail(retry ? `${words} Please try again.` : words, retry);
    return undefined;
  } finally {
    clearTimeout(timer);
    control.disabled = false;
    const lost = !document.activeElement || document.activeElement === document.body;
    if (focused && lost && control.isConnected) control.focus();
  }
}

// ---- Text fields: counters and refusals beside the field ---------------------------------

/** Characters as the service counts them (code points, not UTF-16 units). */
export function length(text) {
  return [...text].length;
}

/** The field's message slot (after the field and its counter), named by aria-describedby. */
function messageOf(field) {
  const id = `${field.id}-error`;
  let node = document.getElementById(id);
  if (!node || !node.isConnected) {
    node = el('p', { class: 'field-error', id, role: 'alert' });
    const counter = document.getElementById(`${field.id}-count`);
    (counter && counter.isConnected ? counter : field).after(node);
    describe(field, id);
  }
  return node;
}

function describe(field, id) {
  const ids = (field.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
  if (!ids.includes(id)) field.setAttribute('aria-describedby', [...ids, id].join(' '));
}

/** Refuses `field` with `text` beside it: marks it invalid and puts the keyboard on it. */
export function refuse(field, text) {
  messageOf(field).textContent = text;
  field.setAttribute('aria-invalid', 'true');
  field.focus();
}

/** Clears the refusal of `field`, if any. */
export function accept(field) {
  const node = document.getElementById(`${field.id}-error`);
  if (node) node.textContent = '';
  field.removeAttribute('aria-invalid');
}

/**
 * A counter under `field` for a `limit` of characters, shown from 80% of it. Nothing is cut: a
 * text over the limit stays as typed or pasted, and the counter says how much too long it is.
 */
export function countChars(field, limit) {
  const counter = el('p', { class: 'counter hint', id: `${field.id}-count` });
  field.after(counter);
  describe(field, counter.id);
  let wasOver = false;
  const update = () => {
    const count = length(field.value);
    const over = count > limit;
    counter.hidden = count < limit * 0.8;
    counter.classList.toggle('over', over);
    counter.textContent = over
      ? `${count.toLocaleString()} of ${limit.toLocaleString()} characters: ${(count - limit).toLocaleString()} too many. Nothing was cut; shorten it before sending.`
      : `${count.toLocaleString()} of ${limit.toLocaleString()} characters.`;
    // Going over (a paste, say) is said at once, in the field's alert; coming back clears it.
    if (over && !wasOver) messageOf(field).textContent = `This is longer than ${limit.toLocaleString()} characters; nothing was cut.`;
    if (!over && wasOver) accept(field);
    wasOver = over;
  };
  field.addEventListener('input', update);
  update();
  return counter;
}

/**
 * Checks `field` before sending: blank (empty or only spaces) when `blank` is a message, or over
 * `limit` characters. Refuses it beside the field and answers false; true when it may be sent.
 */
export function checkText(field, { limit, blank = null }) {
  if (blank && !field.value.trim()) {
    refuse(field, blank);
    return false;
  }
  const count = length(field.value);
  if (limit && count > limit) {
    refuse(field, `This is ${(count - limit).toLocaleString()} characters over the limit of ${limit.toLocaleString()}; shorten it before sending. Nothing was sent.`);
    return false;
  }
  accept(field);
  return true;
}
