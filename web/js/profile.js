// The profile: type and triad, the seven fields editable in place (PATCH with If-Match), each with
// the person's own words it rests on ("From your words"), affirm (lock) after a confirmation,
// reflection with the coach, and the revision history with diffs.
import { api, ApiError } from './api.js';
import { el, fill, initPage, notice, explain, when, FIELDS, FIELD_TITLES } from './ui.js';

initPage();

const TRIADS = { gut: 'Gut (instinct)', heart: 'Heart (feeling)', head: 'Head (thinking)' };
const ORIGINS = { extraction: 'Drawn from your answers', reflection: 'Revised in reflection', manual_edit: 'Edited by you' };
let profile = null;
/** Step number → the prompt's title, for naming where a quote comes from. */
let stepTitles = {};
/** Field → the origin of the last revision that changed it (known once the history loaded). */
let lastChange = {};

function lockedMessage() {
  return 'Your profile is affirmed, so it is locked: it can no longer be edited or revised in reflection.';
}

function renderSummary() {
  fill(document.getElementById('summary'), el('div', { class: 'card' },
    el('p', { class: 'row' },
      el('span', null, el('strong', { text: `Enneagram type ${profile.enneagram_type}` }), ' · ',
        el('span', { id: 'triad', text: `${TRIADS[profile.triad] || profile.triad} triad` })),
      profile.locked
        ? el('span', { class: 'badge', id: 'locked-badge', text: `Affirmed ${when(profile.affirmed_at)}` })
        : el('span', { class: 'badge warn', text: 'Not yet affirmed' })),
    el('p', { class: 'muted', text: `Version ${profile.version}, last changed ${when(profile.updated_at)}` })));
}

function renderFields() {
  const section = document.getElementById('fields');
  fill(section, FIELDS.map((field) => renderField(field)));
}

function renderField(field) {
  const value = profile[field];
  const box = el('div', { class: 'field', id: `field-${field}` },
    el('h2', { text: FIELD_TITLES[field] }),
    el('p', { class: value ? 'value' : 'value muted', text: value || 'Nothing stated.' }),
    renderProvenance(field));
  if (!profile.locked) {
    box.append(el('button', {
      type: 'button', class: 'secondary', 'aria-label': `Edit ${FIELD_TITLES[field]}`,
      onclick: () => editField(field, box), text: 'Edit',
    }));
  }
  return box;
}

/** Where a quote comes from: the prompt it answered, or the reflection. */
function quotedFrom(source) {
  if (source.step) {
    const title = stepTitles[source.step];
    return title ? `your answer to “${title}”` : `your answer to step ${source.step}`;
  }
  return 'what you told the coach';
}

/** The person's own words a field rests on; a field they wrote by hand says so. */
function renderProvenance(field) {
  const id = `provenance-${field}`;
  const sources = (profile.sources && profile.sources[field]) || [];
  if (sources.length) {
    return el('div', { class: 'provenance', id },
      el('p', { class: 'provenance-title', text: 'From your words' }),
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
    if (old) old.replaceWith(renderProvenance(field));
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

function editField(field, box) {
  const id = `edit-${field}`;
  const textarea = el('textarea', { id, maxlength: '4000' });
  textarea.value = profile[field] || '';
  const form = el('form', { class: 'field', id: `field-${field}` },
    el('label', { for: id, text: FIELD_TITLES[field] }), textarea,
    el('div', { class: 'actions' },
      el('button', { type: 'submit', text: 'Save' }),
      el('button', { type: 'button', class: 'secondary', text: 'Cancel',
        onclick: () => { form.replaceWith(renderField(field)); focusEdit(field); } })));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      profile = await api.patch('/discovery/profile/me', { [field]: textarea.value },
        { headers: { 'If-Match': `"${profile.version}"` } });
      notice(`${FIELD_TITLES[field]} saved.`);
      renderAll();
      focusEdit(field);
      loadHistory();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'conflict') {
        await load();
        // Changed elsewhere: if that change was the affirmation, say so rather than "edit again".
        notice(profile && profile.locked ? lockedMessage()
          : 'Your profile changed elsewhere meanwhile; here is the latest version. Please make your edit again.', 'error');
        focusEdit(field);
      } else if (error instanceof ApiError && error.code === 'profile_locked') {
        notice(lockedMessage(), 'error');
        await load();
      } else {
        notice(explain(error), 'error');
        button.disabled = false;
      }
    }
  });
  box.replaceWith(form);
  textarea.focus();
}

/** Keeps the keyboard where it was: on the field's Edit button (there is none once locked). */
function focusEdit(field) {
  const button = document.querySelector(`#field-${field} button`);
  if (button) button.focus();
}

function renderAffirm() {
  const section = document.getElementById('affirm');
  if (profile.locked) {
    fill(section, el('p', { class: 'notice', id: 'locked-note', text: lockedMessage() }));
    return;
  }
  const confirmBox = el('div', { class: 'card', id: 'affirm-confirm', hidden: true, role: 'group', 'aria-labelledby': 'affirm-q' },
    el('p', { id: 'affirm-q', text: 'Affirm this profile? It will be locked: no more edits or reflection. Coaching check-ins start from it.' }),
    el('div', { class: 'actions' },
      el('button', { type: 'button', id: 'affirm-yes', text: 'Yes, affirm and lock', onclick: affirm }),
      el('button', { type: 'button', class: 'secondary', text: 'Not yet', onclick: () => { confirmBox.hidden = true; start.focus(); } })));
  const start = el('button', { type: 'button', id: 'affirm-start', text: 'This is me: affirm…',
    onclick: () => { confirmBox.hidden = false; document.getElementById('affirm-yes').focus(); } });
  fill(section, el('h2', { text: 'Affirm' }),
    el('p', { class: 'muted', text: 'When this reads true, affirm it. Until then, edit it or talk it over with the coach.' }),
    start, confirmBox);
}

async function affirm(event) {
  event.target.disabled = true;
  try {
    profile = await api.post('/discovery/profile/me/affirm');
    notice('Your profile is affirmed.');
    renderAll();
  } catch (error) {
    notice(explain(error), 'error');
    event.target.disabled = false;
  }
}

function chatItem(author, text) {
  return el('li', { class: author }, el('span', { class: 'who', text: author === 'coach' ? 'Coach' : 'You' }), text);
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
  const textarea = el('textarea', { id: 'reflect-message', maxlength: '4000' });
  const form = el('form', { id: 'reflect-form', class: 'card' },
    el('label', { for: 'reflect-message', text: 'Your message to the coach' }), textarea,
    el('div', { class: 'actions' },
      el('button', { type: 'submit', text: 'Send' }),
      messages.length ? null : el('button', { type: 'button', class: 'secondary', id: 'opener', text: 'Let the coach begin',
        onclick: (event) => reflect({ opener: true }, event.target) })));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = textarea.value.trim();
    if (!text) { textarea.focus(); return; }
    reflect({ message: text }, form.querySelector('button[type="submit"]'), text);
  });
  parts.push(form);
  fill(section, parts);

  async function reflect(body, button, mine) {
    button.disabled = true;
    notice('The coach is reading…');
    try {
      const answer = await api.post('/discovery/profile/me/reflect', body);
      if (mine) chat.append(chatItem('person', mine));
      chat.append(chatItem('coach', answer.message));
      textarea.value = '';
      const opener = document.getElementById('opener');
      if (opener) opener.remove();
      if (answer.revisions.length) {
        const names = answer.revisions.map((r) => FIELD_TITLES[r.field] || r.field).join(', ');
        notice(`The coach revised: ${names}.${answer.revision_note ? ' ' + answer.revision_note : ''}`);
        profile = answer.profile;
        renderSummary();
        renderFields();
        loadHistory();
      } else {
        notice('');
      }
    } catch (error) {
      if (error instanceof ApiError && error.code === 'profile_locked') {
        notice(lockedMessage(), 'error');
        await load();
      } else if (error instanceof ApiError && error.code === 'coach_unavailable') {
        notice('The coach could not answer just now; nothing was changed. Please try again.', 'error');
      } else {
        notice(explain(error), 'error');
      }
    } finally {
      button.disabled = false;
    }
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

async function loadHistory() {
  const section = document.getElementById('history');
  const revisions = await api.get('/discovery/profile/me/revisions');
  lastChange = lastChanges(revisions);
  refreshProvenance();
  const items = revisions.slice().reverse().map((revision) => {
    const index = revisions.indexOf(revision);
    const previous = index > 0 ? revisions[index - 1].snapshot : null;
    return el('li', { class: 'revision' },
      el('div', { class: 'row' },
        el('strong', { text: `Revision ${revision.number}: ${ORIGINS[revision.origin] || revision.origin}` }),
        el('span', { class: 'muted', text: when(revision.created_at) })),
      revision.note ? el('p', { class: 'note', text: revision.note }) : null,
      previous ? el('details', null, el('summary', { text: 'What changed' }), diff(previous, revision.snapshot)) : null);
  });
  fill(section, el('h2', { id: 'history-title', text: 'History' }), el('ul', { class: 'plain', id: 'revisions' }, items));
}

function renderAll() {
  renderSummary();
  renderFields();
  renderAffirm();
  renderReflection().catch((error) => notice(explain(error), 'error'));
}

async function load() {
  try {
    const [loaded, prompts] = await Promise.all([api.get('/discovery/profile/me'), api.get('/discovery/prompts')]);
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
  renderAll();
  await loadHistory();
}

load().catch((error) => notice(explain(error), 'error'));
