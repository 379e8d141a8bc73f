// The account: who you are, where you are signed in (revoke), personal API keys (shown once on
// creation; revoke), the activity log, the export and deleting the account.
import { api, ApiError, signOut } from './api.js';
import { el, fill, initPage, notice, explain, when } from './ui.js';

initPage();

const SOURCES = { web: 'this site', api: 'API token', mcp: 'API key' };
let me = null;
let activityCursor = null;

function short(ts) {
  return new Date(ts).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
}

function describeAgent(agent) {
  if (!agent) return 'Unknown device';
  const browser = /Firefox\//.test(agent) ? 'Firefox' : /Edg\//.test(agent) ? 'Edge'
    : /Chrom(e|ium)\//.test(agent) ? 'Chrome' : /Safari\//.test(agent) ? 'Safari' : null;
  return browser ? `${browser} (${agent.slice(0, 60)}${agent.length > 60 ? '…' : ''})` : agent.slice(0, 80);
}

async function loadSessions() {
  const sessions = await api.get('/api/me/sessions');
  fill(document.getElementById('sessions'), sessions.map((session) => {
    const revoke = el('button', { type: 'button', class: 'secondary revoke-session',
      text: session.current ? 'Sign out here' : 'Revoke' });
    revoke.addEventListener('click', async () => {
      if (session.current) { signOut(); return; }
      revoke.disabled = true;
      try {
        await api.delete(`/api/me/sessions/${session.id}`);
        await loadSessions();
        notice('That session is signed out.');
      } catch (error) {
        notice(explain(error), 'error');
        revoke.disabled = false;
      }
    });
    return el('li', { class: 'row session', 'data-id': session.id, 'data-current': String(session.current) },
      el('span', null, el('strong', { text: describeAgent(session.user_agent) }),
        session.current ? el('span', { class: 'badge', text: 'this browser' }) : null, el('br'),
        el('span', { class: 'muted', text: `Signed in ${when(session.created_at)} · last used ${when(session.last_used_at)}${session.ip ? ' · ' + session.ip : ''}` })),
      revoke);
  }));
}

async function loadKeys() {
  const keys = await api.get('/api/me/api-keys');
  fill(document.getElementById('keys'), keys.length ? keys.map((key) => {
    const revoke = el('button', { type: 'button', class: 'secondary revoke-key', text: 'Revoke',
      'aria-label': `Revoke key ${key.name}` });
    revoke.addEventListener('click', async () => {
      revoke.disabled = true;
      try {
        await api.delete(`/api/me/api-keys/${key.id}`);
        await loadKeys();
        notice(`The key “${key.name}” is revoked.`);
      } catch (error) {
        notice(explain(error), 'error');
        revoke.disabled = false;
      }
    });
    return el('li', { class: 'row api-key', 'data-id': key.id },
      el('span', null, el('strong', { text: key.name }), ' ', el('code', { text: `${key.prefix}…` }), el('br'),
        el('span', { class: 'key-scopes', text: `May: ${(key.scopes || []).join(', ')}` }), el('br'),
        el('span', { class: 'muted', text: `Created ${when(key.created_at)} · ${key.expires_at ? 'expires ' + when(key.expires_at) : 'never expires'} · ${key.last_used_at ? 'last used ' + when(key.last_used_at) : 'never used'}` })),
      revoke);
  }) : el('li', { class: 'muted', text: 'No keys yet.' }));
}

async function loadActivity(more = false) {
  const query = more && activityCursor ? `&before=${encodeURIComponent(activityCursor)}` : '';
  const page = await api.get(`/api/activity?limit=25${query}`);
  const rows = page.items.map((entry) => el('tr', null,
    el('td', { class: 'nowrap', text: short(entry.at) }), el('td', { text: entry.action }),
    el('td', { text: SOURCES[entry.source] || entry.source || '' }),
    el('td', { class: 'nowrap', text: entry.ip || '' }),
    el('td', { class: 'num', text: String(entry.status) })));
  const body = document.getElementById('activity');
  if (more) body.append(...rows); else fill(body, rows);
  activityCursor = page.next_cursor;
  document.getElementById('more-activity').hidden = !activityCursor;
}

document.getElementById('more-activity').addEventListener('click', () =>
  loadActivity(true).catch((error) => notice(explain(error), 'error')));

document.getElementById('key-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = document.getElementById('key-name');
  const button = event.submitter;
  if (button) button.disabled = true;
  try {
    const scopes = [...document.querySelectorAll('#key-scopes input[name="scope"]:checked')].map((box) => box.value);
    if (!scopes.length) {
      notice('Choose at least one thing the key may do.', 'error');
      return;
    }
    const expiry = document.getElementById('key-expiry').value;
    const created = await api.post('/api/me/api-keys', {
      name: input.value.trim(), scopes, expires_in_days: expiry ? Number(expiry) : null,
    });
    input.value = '';
    fill(document.getElementById('new-key'), el('div', { class: 'notice', role: 'status' },
      el('p', null, el('strong', { text: `Your new key “${created.name}”.` }),
        ' Copy it now: it is shown only this once.'),
      el('code', { class: 'secret', id: 'new-key-value', text: created.key })));
    await loadKeys();
  } catch (error) {
    notice(explain(error), 'error');
  } finally {
    if (button) button.disabled = false;
  }
});

document.getElementById('export').addEventListener('click', async (event) => {
  const button = event.target;
  button.disabled = true;
  try {
    const data = await api.get('/api/me/export');
    const blob = new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const link = el('a', { href: url, download: 'discovery-export.json' });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    notice('Your data is downloaded as discovery-export.json.');
  } catch (error) {
    notice(explain(error), 'error');
  } finally {
    button.disabled = false;
  }
});

document.getElementById('delete-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const typed = document.getElementById('delete-confirm').value.trim().toLowerCase();
  if (!me || typed !== me.email.toLowerCase()) {
    notice('That is not your e-mail address; nothing was deleted.', 'error');
    return;
  }
  try {
    await api.delete('/api/me');
    location.assign('/login?deleted=1');
  } catch (error) {
    notice(error instanceof ApiError ? explain(error) : 'The account could not be deleted.', 'error');
  }
});

async function main() {
  me = await api.get('/api/me');
  fill(document.getElementById('me'), el('div', { class: 'card' },
    el('p', null, el('strong', { id: 'me-email', text: me.email }), me.name ? ` (${me.name})` : null,
      me.is_admin ? el('span', { class: 'badge', text: 'administrator' }) : null),
    el('p', { class: 'muted', text: `Member since ${when(me.created_at)}` })));
  await Promise.all([loadSessions(), loadKeys(), loadActivity()]);
}

main().catch((error) => notice(explain(error), 'error'));
