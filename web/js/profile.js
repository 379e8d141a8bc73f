// The profile: type and triad, the seven fields editable in place (PATCH with If-Match), each
// with the person's own words it rests on folded under it ("From your words"), affirm (lock)
// after a confirmation and revisit (reopen) after another, reflection with the coach, and the
// revision history with diffs and "Restore this version". Every wait reports beside the control
// that started it (ui.js `act`); a blank or too-long text is refused beside its field.
import { api, ApiError } from './api.js';
import { el, fill, initPage, notice, explain, when, act, countChars, checkText, refuse, FIELDS, FIELD_TITLES, timeZoneSettled } from './ui.js';
import { reopenOffer } from './reopen.js';

initPage();

const TRIADS = { gut: 'Gut (instinct)', heart: 'Heart (feeling)', head: 'Head (thinking)' };
const ORIGINS = { extraction: 'Drawn from your answers', reflection: 'Revised in reflection', manual_edit: 'Edited by you' };
/** The most characters of a profile field and of a message to the coach (docs/api.md). */
const FIELD_LIMIT = 4000;
const MESSAGE_LIMIT = 4000;
/** The goals may be emptied ("I have no such goal"); the other five never (docs/api.md). */
const GOALS = ['near_term_goal_summary', 'long_term_goal_summary'];
let profile = null;
/** Step number → the prompt's title, for naming where a quote comes from. */
let stepTitles = {};
/** Field → the origin of the last revision that changed it (known once the history loaded). */
let lastChange = {};

function lockedMessage() {
  return 'Your profile is affirmed, so it is locked: it can no longer be edited or revised in reflection. '
    + 'To change it, revisit it: that reopens (unlocks) it.';
}

/**
 * The profile's terms, explained where they first appear (folded, so the fields still read in
 * one screen): the same names on every page.
 */
const TERMS = [
  ['Type', 'One of the nine Enneagram types, read from your answers.'],
  ['Triad', 'The centre your type belongs to: gut (instinct), heart (feeling) or head (thinking). The coach starts from it.'],
  ['Near-term goal', 'What you want to reach in the next 6-12 months; long-term goal: in 3-5 years. The dashboard counts the time you give each under the same name.'],
  ['Affirm', 'Say “this is me”: the profile is locked as it is, and coaching check-ins start from it.'],
  ['Revisit', 'Reopen an affirmed profile: it is unlocked to edit again, and check-ins pause until you affirm it again.'],
];

function termsHelp() {
  return el('details', { class: 'terms', id: 'terms' }, el('summary', { text: 'What these words mean' }),
    el('dl', null, TERMS.flatMap(([term, meaning]) => [el('dt', { text: term }), el('dd', { text: meaning })])));
}

function renderSummary() {
  fill(document.getElementById('summary'), el('div', { class: 'card' },
    el('p', { class: 'row' },
      el('span', null, el('strong', { text: `Enneagram type ${profile.enneagram_type}` }), ' · ',
        el('span', { id: 'triad', text: `${TRIADS[profile.triad] || profile.triad} triad` })),
      profile.locked
        ? el('span', { class: 'badge', id: 'locked-badge', text: `Affirmed ${when(profile.affirmed_at)}` })
        : el('span', { class: 'badge warn', text: 'Not yet affirmed' })),
    el('p', { class: 'muted', text: `Version ${profile.version}, last changed ${when(profile.updated_at)}` }),
    termsHelp()));
}

function renderFields() {
  const section = document.getElementById('fields');
  fill(section, FIELDS.map((field) => renderField(field)));
}

function renderField(field) {
  const value = profile[field];
  const head = el('div', { class: 'field-head' }, el('h2', { text: FIELD_TITLES[field] }));
  if (!profile.locked) {
    head.append(el('button', {
      type: 'button', class: 'secondary small', 'aria-label': `Edit ${FIELD_TITLES[field]}`,
      onclick: (event) => editField(field, event.target.closest('.field')), text: 'Edit',
    }));
  }
  return el('div', { class: `field field-${field}`, id: `field-${field}` },
    head,
    el('p', { class: value ? 'value' : 'value muted', text: value || 'Nothing stated.' }),
    renderProvenance(field));
}

/** Where a quote comes from: the prompt it answered, or the reflection. */
function quotedFrom(source) {
  if (source.step) {
    const title = stepTitles[source.step];
    return title ? `your answer to “${title}”` : `your answer to step ${source.step}`;
  }
  return 'what you told the coach';
}

/** The sources of `field`, each quote once (the same words may back a field twice). */
function quotesOf(field) {
  const seen = new Set();
  return ((profile.sources && profile.sources[field]) || []).filter((source) => {
    const key = source.quote.replace(/\s+/g, ' ').trim().toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The person's own words a field rests on, folded; a field they wrote by hand says so. */
function renderProvenance(field) {
  const id = `provenance-${field}`;
  const sources = quotesOf(field);
  if (sources.length) {
    return el('details', { class: 'provenance', id },
      el('summary', { class: 'provenance-title', text: 'From your words' }),
      el('ul', { class: 'plain' }, sources.map((source) => el('li', null,
        el('q', { text: source.quote }), el('span', { class: 'muted', text: ` (${quotedFrom(source)})` })))));
  }
  if (!profile[field]) return el('div', { class: 'provenance', id });
  const text = lastChange[field] === 'manual_edit' ? 'Written by you.'
    : lastChange[field] ? 'No words of yours were found to back this text.' : '';
  return el('div', { class: 'provenance', id }, text ? el('p', { class: 'muted', text }) : null);
}

function refreshProvenance() {
  for (const field of FIELDS) {
    const old = document.getElementById(`provenance-${field}`);
    if (!old) continue;
    // Re-drawn when the history arrives: quotes the person already unfolded stay open.
    const fresh = renderProvenance(field);
    if (old.open && fresh.tagName === 'DETAILS') fresh.open = true;
    old.replaceWith(fresh);
  }
}

/** For each field, the origin of the last revision whose snapshot changed it. */
function lastChanges(revisions) {
  const changes = {};
  revisions.forEach((revision, index) => {
    const previous = index > 0 ? revisions[index - 1].snapshot : null;
    for (const field of FIELDS) {
      if (!previous || snapshotValue(previous, field) !== snapshotValue(revision.snapshot, field)) {
        changes[field] = revision.origin;
      }
    }
  });
  return changes;
}

/** Where a field's result is said once the page re-drew it: under its value. */
function besideField(field) {
  return document.querySelector(`#field-${field} p.value`);
}

function editField(field, box) {
  const id = `edit-${field}`;
  const goal = GOALS.includes(field);
  const hintId = `${id}-hint`;
  const textarea = el('textarea', { id, 'aria-describedby': hintId });
  textarea.value = profile[field] || '';
  const save = el('button', { type: 'submit', text: 'Save' });
  const form = el('form', { class: 'field', id: `field-${field}`, novalidate: true },
    el('label', { for: id, text: FIELD_TITLES[field] }), textarea,
    el('p', { class: 'hint', id: hintId, text: goal
      ? 'Leave it empty if you have no such goal right now.'
      : 'This cannot be left empty; write it as it is true for you.' }),
    el('div', { class: 'actions' }, save,
      el('button', { type: 'button', class: 'secondary', text: 'Cancel',
        onclick: () => { form.replaceWith(renderField(field)); focusEdit(field); } })));
  countChars(textarea, FIELD_LIMIT);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const blank = goal ? null : `${FIELD_TITLES[field]} cannot be empty: write what is true for you, or press Cancel to keep it.`;
    if (!checkText(textarea, { limit: FIELD_LIMIT, blank })) return;
    const value = goal && !textarea.value.trim() ? null : textarea.value;
    await act(save, {
      key: `field-${field}`, progress: 'Saving…',
      done: (saved) => {
        profile = saved;
        renderAll();
        focusEdit(field);
        loadHistory().catch((error) => notice(explain(error), 'error'));
        return { text: `${FIELD_TITLES[field]} saved.`, anchor: besideField(field) };
      },
      failure: (error) => editFailure(field, textarea, error),
    }, () => api.patch('/discovery/profile/me', { [field]: value }, { headers: { 'If-Match': `"${profile.version}"` } }));
  });
  box.replaceWith(form);
  textarea.focus();
}

/** Words for a refused edit, said beside the field (the page first shows the latest profile). */
async function editFailure(field, textarea, error) {
  if (error instanceof ApiError && error.code === 'validation_failed') {
    const detail = error.details.find((d) => d.field === field);
    refuse(textarea, detail ? `${FIELD_TITLES[field]}: ${detail.message}` : explain(error));
    return { text: 'Nothing was saved.', anchor: textarea.closest('form').querySelector('.actions') };
  }
  if (error instanceof ApiError && (error.code === 'conflict' || error.code === 'profile_locked')) {
    await load();
    // Changed elsewhere: if that change was the affirmation, say so rather than "edit again".
    const text = profile && profile.locked ? lockedMessage()
      : 'Your profile changed elsewhere meanwhile; here is the latest version. Please make your edit again.';
    return { text, anchor: besideField(field) };
  }
  return null;
}

/** Keeps the keyboard where it was: on the field's Edit button (there is none once locked). */
function focusEdit(field) {
  const button = document.querySelector(`#field-${field} button`);
  if (button) button.focus();
}

function renderAffirm() {
  const section = document.getElementById('affirm');
  if (profile.locked) {
    fill(section, el('p', { class: 'notice', id: 'locked-note', tabindex: '-1', text: lockedMessage() }),
      reopenOffer('profile', (reopened) => {
        profile = reopened;
        renderAll();
        loadHistory().catch((error) => notice(explain(error), 'error'));
        const start = document.getElementById('affirm-start');
        if (start) start.focus();
        return { text: 'Your profile is open again: edit it, or talk it over with the coach below. Check-ins pause until you affirm it again.', anchor: start };
      }));
    return;
  }
  const yes = el('button', { type: 'button', id: 'affirm-yes', text: 'Yes, affirm and lock' });
  yes.addEventListener('click', () => act(yes, {
    key: 'affirm', progress: 'Affirming your profile…',
    done: async (affirmed) => {
      profile = affirmed;
      renderAll();
      // Locked now: the history's "Restore this version" buttons no longer apply.
      await loadHistory().catch((error) => notice(explain(error), 'error'));
      const note = document.getElementById('locked-note');
      note.focus();
      return { text: 'Your profile is affirmed.', anchor: note };
    },
  }, () => api.post('/discovery/profile/me/affirm')));
  const confirmBox = el('div', { class: 'card', id: 'affirm-confirm', hidden: true, role: 'group', 'aria-labelledby': 'affirm-q' },
    el('p', { id: 'affirm-q', text: 'Affirm this profile? It will be locked: no more edits or reflection. Coaching check-ins start from it.' }),
    el('div', { class: 'actions' }, yes,
      el('button', { type: 'button', class: 'secondary', text: 'Not yet', onclick: () => { confirmBox.hidden = true; start.focus(); } })));
  const start = el('button', { type: 'button', id: 'affirm-start', text: 'This is me: affirm…',
    onclick: () => { confirmBox.hidden = false; yes.focus(); } });
  fill(section, el('h2', { text: 'Affirm' }),
    el('p', { class: 'muted', id: 'affirm-help', text: 'When this reads true, affirm it: affirming says “this is me”, locks the profile as it is, and starts your coaching check-ins from it. Until then, edit it or talk it over with the coach.' }),
    start, confirmBox);
}

function chatItem(author, text) {
  return el('li', { class: author }, el('span', { class: 'who', text: author === 'coach' ? 'Coach' : 'You' }), text);
}

/** Said once, beside the coach, while the service's own coach answers: what it reads. */
function readsEnglishNote() {
  return el('p', { class: 'muted', id: 'coach-reads', text: 'This is the service’s built-in coach: it reads English. '
    + 'With a language model connected by whoever runs this service, the coach reads other languages too.' });
}

async function renderReflection() {
  const section = document.getElementById('reflection');
  const messages = await api.get('/discovery/profile/me/reflection');
  const chat = el('ol', { class: 'chat', id: 'chat', 'aria-live': 'polite' }, messages.map((m) => chatItem(m.author, m.text)));
  const parts = [el('h2', { id: 'reflection-title', text: 'Reflect with the coach' }), chat];
  if (profile.locked) {
    if (!messages.length) parts.push(el('p', { class: 'muted', text: 'No reflection took place before the profile was affirmed.' }));
    fill(section, parts);
    return;
  }
  const textarea = el('textarea', { id: 'reflect-message' });
  const send = el('button', { type: 'submit', text: 'Send' });
  const form = el('form', { id: 'reflect-form', class: 'card', novalidate: true },
    el('label', { for: 'reflect-message', text: 'Your message to the coach' }), textarea,
    el('div', { class: 'actions' }, send,
      messages.length ? null : el('button', { type: 'button', class: 'secondary', id: 'opener', text: 'Let the coach begin',
        onclick: (event) => reflect({ opener: true }, event.target) })));
  countChars(textarea, MESSAGE_LIMIT);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!checkText(textarea, { limit: MESSAGE_LIMIT, blank: 'Write a message to the coach first.' })) return;
    reflect({ message: textarea.value.trim() }, send, textarea.value.trim());
  });
  if (messages.some((m) => m.engine === 'offline')) parts.push(readsEnglishNote());
  parts.push(form);
  fill(section, parts);

  function reflect(body, button, mine) {
    return act(button, {
      key: 'reflect', progress: 'The coach is reading…', slow: 'model',
      anchor: form.querySelector('.actions'),
      done: (answer) => {
        if (mine) chat.append(chatItem('person', mine));
        chat.append(chatItem('coach', answer.message));
        if (answer.engine === 'offline' && !document.getElementById('coach-reads')) form.before(readsEnglishNote());
        textarea.value = '';
        textarea.dispatchEvent(new Event('input'));
        const opener = document.getElementById('opener');
        if (opener) opener.remove();
        if (!answer.revisions.length) return 'The coach answered; your profile is unchanged.';
        profile = answer.profile;
        renderSummary();
        renderFields();
        loadHistory().catch((error) => notice(explain(error), 'error'));
        const names = answer.revisions.map((r) => FIELD_TITLES[r.field] || r.field).join(', ');
        return `The coach revised: ${names}.${answer.revision_note ? ' ' + answer.revision_note : ''}`;
      },
      failure: async (error) => {
        if (error instanceof ApiError && error.code === 'profile_locked') {
          await load();
          return { text: lockedMessage(), anchor: document.getElementById('reflection').lastElementChild };
        }
        if (error instanceof ApiError && error.code === 'coach_unavailable') {
          return 'The coach could not answer just now: the language model did not respond. Nothing was changed.';
        }
        return null;
      },
    }, () => api.post('/discovery/profile/me/reflect', body));
  }
}

function snapshotValue(snapshot, field) {
  return snapshot && snapshot[field] !== undefined && snapshot[field] !== null ? String(snapshot[field]) : '';
}

function diff(previous, current) {
  const keys = ['enneagram_type', 'triad', ...FIELDS];
  const rows = [];
  for (const key of keys) {
    const before = snapshotValue(previous, key);
    const after = snapshotValue(current, key);
    if (before === after) continue;
    rows.push(el('dt', { text: FIELD_TITLES[key] || key }));
    if (before) rows.push(el('dd', null, el('del', { text: before })));
    if (after) rows.push(el('dd', null, el('ins', { text: after })));
  }
  if (!rows.length) return el('p', { class: 'muted', text: 'No change to the text.' });
  return el('dl', { class: 'diff' }, rows);
}

/** "Restore this version" for a past revision: its seven fields come back as a new revision. */
function restoreButton(revision) {
  // The name begins with the words shown, so a person who says "Restore this version" reaches it.
  const button = el('button', { type: 'button', class: 'secondary small restore', text: 'Restore this version',
    'aria-label': `Restore this version (revision ${revision.number})` });
  button.addEventListener('click', () => act(button, {
    key: `restore-${revision.number}`, progress: `Restoring revision ${revision.number}…`,
    done: async (restored) => {
      profile = restored;
      renderAll();
      await loadHistory();
      const again = document.querySelector(`#revisions li[data-number="${revision.number}"] button.restore`);
      if (again) again.focus();
      return { text: `Revision ${revision.number} is restored: it is the newest revision now, and your fields above show it.`,
        anchor: again ? again.closest('.actions') : document.getElementById('revisions') };
    },
    failure: async (error) => {
      if (error instanceof ApiError && error.code === 'profile_locked') {
        await load();
        return { text: `${lockedMessage()} Revisit it first to restore a version.`, anchor: document.getElementById('locked-note') };
      }
      return null;
    },
  }, () => api.post(`/discovery/profile/me/revisions/${revision.number}/restore`)));
  return button;
}

async function loadHistory() {
  const section = document.getElementById('history');
  const revisions = await api.get('/discovery/profile/me/revisions');
  lastChange = lastChanges(revisions);
  refreshProvenance();
  const latest = revisions.length ? revisions[revisions.length - 1].number : null;
  const items = revisions.slice().reverse().map((revision) => {
    const index = revisions.indexOf(revision);
    const previous = index > 0 ? revisions[index - 1].snapshot : null;
    const past = revision.number !== latest;
    return el('li', { class: 'revision', 'data-number': String(revision.number) },
      el('div', { class: 'row' },
        el('strong', { text: `Revision ${revision.number}: ${ORIGINS[revision.origin] || revision.origin}` }),
        el('span', { class: 'muted', text: when(revision.created_at) })),
      revision.note ? el('p', { class: 'note', text: revision.note }) : null,
      previous ? el('details', null, el('summary', { text: 'What changed' }), diff(previous, revision.snapshot)) : null,
      past && !profile.locked ? el('div', { class: 'actions' }, restoreButton(revision)) : null);
  });
  fill(section, el('h2', { id: 'history-title', text: 'History' }),
    profile.locked && revisions.length > 1
      ? el('p', { class: 'muted', text: 'To bring back an earlier version, revisit your profile first.' }) : null,
    el('ul', { class: 'plain', id: 'revisions' }, items));
}

/** Draws the whole profile; resolves once the reflection (read from the service) is drawn too. */
function renderAll() {
  renderSummary();
  renderFields();
  renderAffirm();
  return renderReflection().catch((error) => notice(explain(error), 'error'));
}

async function load() {
  try {
    // Times are shown in the account's zone, read with the profile.
    const [loaded, prompts] = await Promise.all([api.get('/discovery/profile/me'), api.get('/discovery/prompts'), timeZoneSettled]);
    profile = loaded;
    stepTitles = Object.fromEntries(prompts.map((p) => [p.step, p.title]));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      fill(document.getElementById('summary'), el('div', { class: 'card' },
        el('p', { text: 'You have no profile yet: it is drawn from your discovery answers.' }),
        el('a', { class: 'button', href: '/discovery.html', text: 'Begin your discovery' })));
      return;
    }
    throw error;
  }
  await renderAll();
  await loadHistory();
}

/** Opened at `#reflection` (a revisit from a check-in): straight to the message to the coach. */
function toReflection() {
  if (location.hash !== '#reflection') return;
  const message = document.getElementById('reflect-message');
  document.getElementById('reflection').scrollIntoView({ block: 'start' });
  if (!message) return;
  // The chat above may be long: the box the keyboard is in must be in view too.
  message.focus({ preventScroll: true });
  message.scrollIntoView({ block: 'nearest' });
}

load().then(toReflection).catch((error) => notice(explain(error), 'error'));
