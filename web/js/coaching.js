// Coaching: the preferences (derived from the triad, or the person's own) and the check-ins,
// each answered "still holds" or "no longer holds" with an optional note. Each check-in is at
// `#checkin-<id>` (the link of its e-mail): opened so, the page scrolls to it and focuses its note.
// A check-in answered "no longer holds" (`revisit: true`) offers to reopen the profile, then the
// reflection. Every wait reports beside its button (ui.js `act`).
import { api, ApiError } from './api.js';
import { el, fill, initPage, notice, explain, when, at, act, countChars, checkText, timeZoneSettled } from './ui.js';
import { reopenOffer } from './reopen.js';

initPage();

/** The most characters of a note to a check-in. */
const NOTE_LIMIT = 4000;
/** How many calendar days a check-in's observation counts, today included (docs/api.md). */
const OBSERVED_DAYS = 14;

/** "23 Nov to 6 Dec 2026": the days a check-in written at `ts` observed, in the person's zone. */
function observedSpan(ts) {
  const end = new Date(ts);
  const start = new Date(end.getTime() - (OBSERVED_DAYS - 1) * 86400000);
  return `${at(start.toISOString(), { day: 'numeric', month: 'short' })} to ${at(ts, { dateStyle: 'medium' })}`;
}

/** Whether the profile is affirmed (locked) now: a revisit then starts by reopening it. */
let profileLocked = false;

const CHOICES = {
  coaching_frequency: { label: 'How often', options: { weekly: 'Weekly', biweekly: 'Every two weeks', monthly: 'Monthly' } },
  coaching_style: { label: 'Style', options: { direct: 'Direct', warm: 'Warm', reflective: 'Reflective' } },
  friction_tolerance: { label: 'How much challenge', options: { low: 'Low', medium: 'Medium', high: 'High' } },
  time_of_day_preference: { label: 'Time of day', options: { morning: 'Morning', afternoon: 'Afternoon', evening: 'Evening', any: 'Any time' } },
};

function select(name, spec, value) {
  const id = `pref-${name}`;
  const input = el('select', { id, name },
    Object.entries(spec.options).map(([key, label]) => el('option', { value: key, selected: key === value, text: label })));
  return el('div', null, el('label', { for: id, text: spec.label }), input);
}

function renderPreferences(prefs) {
  const section = document.getElementById('preferences');
  const threshold = el('input', { id: 'pref-threshold', name: 'misalignment_threshold', type: 'number',
    min: '0', max: '1', step: '0.05', value: String(prefs.misalignment_threshold), 'aria-describedby': 'threshold-hint' });
  const questions = el('input', { id: 'pref-questions', type: 'checkbox', checked: prefs.prefer_questions_over_directives });
  const form = el('form', { class: 'card', id: 'preferences-form' },
    el('p', { id: 'pref-source' },
      prefs.source === 'derived'
        ? el('span', { class: 'badge', text: 'Derived from your type' })
        : el('span', { class: 'badge warn', text: 'Your own settings' }),
      ' ', el('span', { class: 'muted', text: `updated ${when(prefs.updated_at)}` })),
    el('div', { class: 'grid2' },
      Object.entries(CHOICES).map(([name, spec]) => select(name, spec, prefs[name])),
      el('div', null, el('label', { for: 'pref-threshold', text: 'Misalignment threshold' }), threshold,
        el('p', { class: 'hint', id: 'threshold-hint', text: 'From 0 to 1: how far your time may drift from your goals before a check-in mentions it.' }))),
    el('p', null, el('label', { class: 'inline', for: 'pref-questions' }, questions, 'Prefer questions over suggestions')),
    el('div', { class: 'actions' },
      el('button', { type: 'submit', text: 'Save my settings' }),
      el('button', { type: 'button', class: 'secondary', id: 'regenerate', text: 'Go back to the derived settings', onclick: regenerate })));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = {};
    for (const name of Object.keys(CHOICES)) body[name] = form.querySelector(`[name="${name}"]`).value;
    body.misalignment_threshold = Number(threshold.value);
    body.prefer_questions_over_directives = questions.checked;
    await act(form.querySelector('button[type="submit"]'), {
      key: 'preferences', progress: 'Saving your settings…',
      done: (saved) => {
        renderPreferences(saved);
        return { text: 'Your coaching settings are saved.', anchor: document.querySelector('#preferences-form .actions') };
      },
    }, () => api.put('/coaching/preferences', body));
  });
  fill(section, el('h2', { id: 'preferences-title', text: 'How the coach works with you' }), form);
}

function regenerate(event) {
  return act(event.target, {
    key: 'preferences', progress: 'Deriving your settings from your type…',
    done: (derived) => {
      renderPreferences(derived);
      return { text: 'Your coaching settings are derived from your type again.', anchor: document.querySelector('#preferences-form .actions') };
    },
  }, () => api.post('/coaching/preferences/regenerate'));
}

/** After "no longer holds": reopen the profile (when it is locked), then reflect on what changed. */
function revisitOffer(checkin) {
  const reflect = el('a', { class: 'button secondary', href: '/profile.html#reflection', text: 'Talk it over with the coach' });
  if (!profileLocked) {
    return el('div', { class: 'revisit' },
      el('p', { text: 'Your direction has changed. Your profile is open: talk over what changed with the coach, then affirm it again.' }),
      el('div', { class: 'actions' }, reflect));
  }
  return el('div', { class: 'revisit' },
    el('p', { text: 'Your direction has changed. Revisit your profile: unlock it, then talk over what changed with the coach.' }),
    reopenOffer(`checkin-${checkin.id}`, () => {
      profileLocked = false;
      const box = document.querySelector(`#checkin-${checkin.id} .revisit`);
      const next = el('div', { class: 'actions' }, el('a', { class: 'button', id: `reflect-after-${checkin.id}`, href: '/profile.html#reflection', text: 'Talk it over with the coach' }));
      box.after(next);
      box.remove();
      next.querySelector('a').focus();
      return { text: 'Your profile is open again; check-ins pause until you affirm it again.', anchor: next };
    }));
}

function renderCheckin(checkin) {
  const item = el('li', { class: 'card checkin', id: `checkin-${checkin.id}`, 'data-id': checkin.id },
    el('p', { class: 'muted', text: `${when(checkin.created_at)}${checkin.origin === 'batch' ? ' · scheduled' : ''}` }),
    el('p', { class: 'message', text: checkin.message }),
    // A goal the message already quotes is not quoted a second time below it.
    checkin.quoted_goals.filter((goal) => !checkin.message.includes(goal)).map((goal) => el('blockquote', { text: goal })),
    checkin.observation ? el('p', { class: 'observation' },
      el('strong', { class: 'observation-window', text: `${observedSpan(checkin.created_at)} (your last ${OBSERVED_DAYS} days, up to when this check-in was written): ` }),
      checkin.observation) : null);
  if (checkin.responded_at) {
    item.append(el('p', { class: 'response' },
      el('strong', { text: checkin.still_valid ? 'Still holds.' : 'No longer holds.' }),
      checkin.response_note ? ' ' : null, checkin.response_note || null));
    if (checkin.revisit) item.append(revisitOffer(checkin));
    return item;
  }
  const noteId = `note-${checkin.id}`;
  const note = el('textarea', { id: noteId });
  const respond = (stillValid, button) => {
    if (!checkText(note, { limit: NOTE_LIMIT })) return undefined;
    const body = { still_valid: stillValid };
    if (note.value.trim()) body.note = note.value.trim();
    return act(button, {
      key: `checkin-${checkin.id}`, progress: 'Recording your answer…',
      done: (updated) => {
        const fresh = renderCheckin(updated);
        item.replaceWith(fresh);
        return { text: 'Thank you: your answer is recorded.', anchor: fresh.querySelector('.response') };
      },
      failure: (error) => (error instanceof ApiError && error.code === 'already_responded'
        ? 'This check-in was already answered.' : null),
    }, () => api.post(`/coaching/checkins/${checkin.id}/response`, body));
  };
  item.append(
    el('label', { for: noteId, text: 'A note, if you like' }), note,
    el('div', { class: 'actions' },
      el('button', { type: 'button', class: 'still-holds', text: 'Still holds', onclick: (e) => respond(true, e.target) }),
      el('button', { type: 'button', class: 'secondary no-longer', text: 'No longer holds', onclick: (e) => respond(false, e.target) })));
  countChars(note, NOTE_LIMIT);
  return item;
}

async function renderCheckins() {
  const section = document.getElementById('checkins');
  const page = await api.get('/coaching/checkins?limit=50');
  const list = el('ul', { class: 'plain', id: 'checkin-list' }, page.items.map(renderCheckin));
  const ask = el('button', { type: 'button', id: 'new-checkin', text: 'Check in now' });
  ask.addEventListener('click', () => act(ask, {
    key: 'new-checkin', progress: 'Writing a check-in…', slow: 'model',
    done: (checkin) => {
      list.prepend(renderCheckin(checkin));
      document.getElementById('no-checkins')?.remove();
      return 'A new check-in is ready below.';
    },
    failure: (error) => (error instanceof ApiError && error.code === 'profile_not_affirmed'
      ? 'Check-ins start once your profile is affirmed: affirm it on your profile page first.' : null),
  }, () => api.post('/coaching/checkins')));
  fill(section, el('h2', { id: 'checkins-title', text: 'Check-ins' }),
    el('p', { class: 'muted', text: 'The coach holds your goals up against where your time went, and asks whether the direction still feels right.' }),
    el('div', { class: 'actions' }, ask),
    page.items.length ? null : el('p', { class: 'muted', id: 'no-checkins', text: 'No check-ins yet.' }),
    list);
}

// The check-in asked for by `#checkin-<id>`. A sign-in on the way here keeps only the path, so
// the hash is also kept in this tab's sessionStorage for a while, and taken from there after.
const TARGET_KEY = 'coaching.target';
const TARGET_TTL_MS = 30 * 60 * 1000;

function targetFromHash() {
  const match = /^#(checkin-[0-9a-fA-F-]{36})$/.exec(location.hash);
  return match ? match[1] : null;
}

function rememberTarget() {
  const target = targetFromHash();
  try {
    if (target) sessionStorage.setItem(TARGET_KEY, JSON.stringify({ target, at: Date.now() }));
  } catch {
    // No storage (private mode): the hash still works when no sign-in comes between.
  }
}

function takeTarget() {
  let stored = null;
  try {
    stored = JSON.parse(sessionStorage.getItem(TARGET_KEY) || 'null');
    sessionStorage.removeItem(TARGET_KEY);
  } catch {
    stored = null;
  }
  const fresh = stored && typeof stored.target === 'string' && Date.now() - stored.at < TARGET_TTL_MS;
  return targetFromHash() || (fresh ? stored.target : null);
}

/** Scrolls to the check-in `target` names and focuses its first control (or itself). */
function showTarget(target) {
  if (!target) return;
  const item = document.getElementById(target);
  if (!item || !item.classList.contains('checkin')) {
    notice('That check-in is not among your latest ones here.', 'error');
    return;
  }
  if (location.hash !== `#${target}`) history.replaceState(null, '', `#${target}`);
  item.scrollIntoView({ block: 'start' });
  const control = item.querySelector('textarea, input, select, button');
  if (!control) item.setAttribute('tabindex', '-1'); // an answered one: focus the check-in itself
  (control || item).focus({ preventScroll: true });
  // A tall check-in may put its first control below the screen: bring that into view too.
  if (control) control.scrollIntoView({ block: 'nearest' });
}

window.addEventListener('hashchange', () => {
  if (document.getElementById('checkin-list')) showTarget(targetFromHash());
});

async function main() {
  rememberTarget();
  // Times are shown in the account's zone.
  await timeZoneSettled;
  try {
    renderPreferences(await api.get('/coaching/preferences'));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      fill(document.getElementById('preferences'), el('div', { class: 'card' },
        el('p', { text: 'Coaching begins from your profile, and you have none yet.' }),
        el('a', { class: 'button', href: '/discovery.html', text: 'Begin your discovery' })));
      return;
    }
    throw error;
  }
  profileLocked = Boolean((await api.get('/discovery/profile/me')).locked);
  await renderCheckins();
  showTarget(takeTarget());
}

main().catch((error) => notice(explain(error), 'error'));
