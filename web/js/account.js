// The account: who you are, where you are signed in (revoke), personal API keys (shown once on
// creation; revoke), check-ins by e-mail, webhook endpoints (the signing secret shown once on
// creation; a test, the delivery log, delete), the activity log, the export and deleting the account.
import { api, ApiError, signOut } from './api.js';
import { activityWords } from './activity-words.js';
import { confirmFirst } from './confirm.js';
import { zoneChoices, matching } from './time-zones.js';
import { el, fill, initPage, notice, explain, when, at, act, statusBeside, refuse, accept, countChars, checkText, browserTimeZone, timeZoneSettled, showTimesIn, TIME_ZONE_KEY } from './ui.js';

initPage();

/** The most characters of a key's name and of a webhook's address (the service's limits). */
const KEY_NAME_LIMIT = 100;
const WEBHOOK_URL_LIMIT = 2000;
countChars(document.getElementById('key-name'), KEY_NAME_LIMIT);
countChars(document.getElementById('webhook-url'), WEBHOOK_URL_LIMIT);

const SOURCES = { web: 'this site', api: 'API token', mcp: 'API key' };
let me = null;
let activityCursor = null;

function short(ts) {
  return at(ts, { dateStyle: 'short', timeStyle: 'short' });
}

/** The device of a session in words ("Firefox on Linux", named by the service), else its raw agent. */
function describeAgent(session) {
  if (session.device) return session.device;
  if (!session.user_agent) return 'Unknown device';
  return session.user_agent.length > 80 ? `${session.user_agent.slice(0, 80)}…` : session.user_agent;
}

/**
 * A button that copies the text of `code` (a secret shown once) and says so; without a clipboard
 * (permissions, an old browser) it selects the text for a manual copy.
 */
function copyButton(id, label, what, code) {
  const button = el('button', { type: 'button', class: 'secondary', id, text: label });
  button.addEventListener('click', async () => {
    // Said beside the button, where the person is looking (status-<id>).
    const status = statusBeside(button.closest('.actions') || button, id);
    try {
      await navigator.clipboard.writeText(code.textContent);
      status.say(`The ${what} is copied.`);
    } catch {
      getSelection().selectAllChildren(code);
      status.say(`Copying did not work here; the ${what} is selected, so copy it with your keyboard.`);
    }
  });
  return button;
}

async function loadSessions() {
  const sessions = await api.get('/api/me/sessions');
  fill(document.getElementById('sessions'), sessions.map((session) => {
    const device = describeAgent(session);
    const revoke = el('button', { type: 'button', class: 'secondary revoke-session',
      text: session.current ? 'Sign out here' : 'Revoke', 'aria-label': session.current ? null : `Revoke the session on ${device}` });
    // Signing out here is the navigation's "Sign out"; ending another session asks first.
    const question = session.current ? null : confirmFirst(revoke, {
      id: `revoke-session-q-${session.id}`, yes: 'Yes, sign it out', keep: 'Keep it signed in',
      question: `Sign out the session on ${device}? Whoever uses it must sign in again.`,
      onYes: (yes) => removeListed(yes, {
        list: 'sessions', item: 'li.session', key: 'session', progress: 'Signing that session out…',
        reload: loadSessions, said: 'That session is signed out.', fallback: 'sessions-title',
      }, () => api.delete(`/api/me/sessions/${session.id}`)),
    });
    if (session.current) revoke.addEventListener('click', () => signOut());
    return el('li', { class: 'session', 'data-id': session.id, 'data-current': String(session.current) },
      el('div', { class: 'row' },
        el('span', null, el('strong', { text: device, title: session.user_agent || null }),
          session.current ? el('span', { class: 'badge', text: 'this browser' }) : null, el('br'),
          el('span', { class: 'muted', text: `Signed in ${when(session.created_at)} · last used ${when(session.last_used_at)}${session.ip ? ' · ' + session.ip : ''}` })),
        revoke),
      question);
  }));
}

/**
 * Runs a confirmed removal from a list (`spec.list` the list's id, `spec.item` its items'
 * selector) and reports beside the list as it is after `spec.reload`: the keyboard goes on to the
 * next item's first button, else the previous one's, else `spec.fallback` (an id).
 */
function removeListed(yes, spec, action) {
  const item = yes.closest(spec.item);
  const neighbour = item.nextElementSibling || item.previousElementSibling;
  const neighbourId = neighbour && neighbour.dataset.id;
  return act(yes, {
    key: spec.key, anchor: item.querySelector('.row'), progress: spec.progress,
    done: async () => {
      await spec.reload();
      const other = neighbourId && document.querySelector(`#${spec.list} ${spec.item}[data-id="${CSS.escape(neighbourId)}"]`);
      const next = (other && other.querySelector('button')) || document.getElementById(spec.fallback);
      next.focus();
      return { text: spec.said, anchor: (other && other.querySelector('.row')) || document.getElementById(spec.list) };
    },
  }, action);
}

async function loadKeys() {
  const keys = await api.get('/api/me/api-keys');
  fill(document.getElementById('keys'), keys.length ? keys.map((key) => {
    const revoke = el('button', { type: 'button', class: 'secondary revoke-key', text: 'Revoke',
      'aria-label': `Revoke key ${key.name}` });
    const question = confirmFirst(revoke, {
      id: `revoke-key-q-${key.id}`, yes: 'Yes, revoke it',
      question: `Revoke the key “${key.name}”? Every tool that uses it stops working at once. This cannot be undone.`,
      onYes: (yes) => removeListed(yes, {
        list: 'keys', item: 'li.api-key', key: 'key-revoke', progress: `Revoking the key “${key.name}”…`,
        reload: loadKeys, said: `The key “${key.name}” is revoked.`, fallback: 'key-name',
      }, () => api.delete(`/api/me/api-keys/${key.id}`)),
    });
    return el('li', { class: 'api-key', 'data-id': key.id },
      el('div', { class: 'row' },
        el('span', null, el('strong', { text: key.name }), ' ', el('code', { text: `${key.prefix}…` }), el('br'),
          el('span', { class: 'key-scopes', text: `May: ${(key.scopes || []).join(', ')}` }), el('br'),
          el('span', { class: 'muted', text: `Created ${when(key.created_at)} · ${key.expires_at ? 'expires ' + when(key.expires_at) : 'never expires'} · ${key.last_used_at ? 'last used ' + when(key.last_used_at) : 'never used'}` })),
        revoke),
      question);
  }) : el('li', { class: 'muted', id: 'no-keys', text: 'No keys yet.' }));
}

/**
 * Runs `action` with `control` disabled meanwhile, and gives the focus back to it afterwards if
 * it had it and nothing else took it (a focused control that is disabled loses the focus).
 */
async function holding(control, action) {
  const focused = document.activeElement === control;
  control.disabled = true;
  try {
    return await action();
  } finally {
    control.disabled = false;
    const lost = !document.activeElement || document.activeElement === document.body;
    if (focused && lost && control.isConnected) control.focus();
  }
}

function renderNotifications(settings) {
  const box = document.getElementById('email-checkins');
  box.checked = settings.email_checkins;
  box.disabled = !settings.email_available;
  document.getElementById('email-checkins-hint').textContent = settings.email_available
    ? `Sent to ${settings.email}, with a link to answer it here. Every e-mail has a one-click unsubscribe.`
    : `This server does not send e-mail (its operator has not set it up), so this cannot be turned on. Check-ins would go to ${settings.email}.`;
}

async function loadNotifications() {
  renderNotifications(await api.get('/api/me/notifications'));
}

document.getElementById('email-checkins').addEventListener('change', async (event) => {
  const box = event.target;
  const wanted = box.checked;
  let settings = null;
  let failure = null;
  await holding(box, async () => {
    try {
      settings = await api.put('/api/me/notifications', { email_checkins: wanted });
    } catch (error) {
      failure = error;
    }
  });
  // Said under the setting's hint, beside the box.
  const status = statusBeside(document.getElementById('email-checkins-hint'), 'email-checkins');
  if (settings) {
    renderNotifications(settings);
    status.say(settings.email_checkins
      ? `Each new check-in will be e-mailed to ${settings.email}.`
      : 'Check-ins are no longer e-mailed to you.');
    return;
  }
  box.checked = !wanted;
  status.fail(explain(failure));
  // The server stopped sending e-mail meanwhile: show the setting as it now is (disabled).
  if (failure instanceof ApiError && failure.code === 'email_unavailable') await loadNotifications().catch(() => {});
});

const DELIVERY_STATUS = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' };
const DELIVERY_LOG_SIZE = 10;

/** "must be an https:// URL" → "Must be an https:// URL." */
function sentence(text) {
  const t = String(text || '').trim();
  if (!t) return '';
  return t[0].toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? '' : '.');
}

const WEBHOOK_FIELDS = {
  url: { error: 'webhook-url-error', focus: () => document.getElementById('webhook-url') },
  events: { error: 'webhook-events-error', focus: () => document.querySelector('#webhook-events input') },
};

/** Clears the webhook form's errors, or shows `fields` (`{url, events}`) and `general`. */
function webhookErrors(fields = {}, general = '') {
  for (const [name, spec] of Object.entries(WEBHOOK_FIELDS)) {
    document.getElementById(spec.error).textContent = fields[name] || '';
  }
  const url = document.getElementById('webhook-url');
  if (fields.url) url.setAttribute('aria-invalid', 'true'); else url.removeAttribute('aria-invalid');
  document.getElementById('webhook-error').textContent = general;
  const first = Object.keys(WEBHOOK_FIELDS).find((name) => fields[name]);
  if (first) WEBHOOK_FIELDS[first].focus().focus();
}

function deliveryRow(delivery) {
  let status = DELIVERY_STATUS[delivery.status] || delivery.status;
  if (delivery.status === 'pending' && delivery.next_attempt_at && delivery.attempt > 0) {
    status += ` · next try ${short(delivery.next_attempt_at)}`;
  }
  const answer = [delivery.response_status === null || delivery.response_status === undefined
    ? null : `HTTP ${delivery.response_status}`, delivery.error].filter(Boolean).join(' · ');
  return el('tr', { class: `delivery ${delivery.status}`, 'data-event': delivery.event_type },
    el('td', { class: 'nowrap', text: short(delivery.last_attempt_at || delivery.created_at) }),
    el('td', null, el('code', { text: delivery.event_type })),
    el('td', { class: 'delivery-status', text: status }),
    el('td', { class: 'num', text: String(delivery.attempt) }),
    el('td', { class: 'delivery-answer', text: answer || '—' }));
}

function renderWebhook(webhook) {
  const captionId = `deliveries-caption-${webhook.id}`;
  const rows = el('tbody', { id: `deliveries-${webhook.id}` });
  const more = el('p', { class: 'hint', hidden: true, text: `The newest ${DELIVERY_LOG_SIZE} are shown.` });
  let loading = null;
  const loadLog = async () => {
    const sequence = (loading = Symbol('log'));
    const page = await api.get(`/api/me/webhooks/${webhook.id}/deliveries?limit=${DELIVERY_LOG_SIZE}`);
    if (sequence !== loading) return;
    fill(rows, page.items.length ? page.items.map(deliveryRow)
      : el('tr', null, el('td', { colspan: '5', class: 'muted', text: 'Nothing sent yet.' })));
    more.hidden = !page.next_cursor;
  };
  const log = el('details', { class: 'delivery-log' },
    el('summary', { text: 'Delivery log', 'aria-label': `Delivery log of ${webhook.url}` }),
    el('div', { class: 'table-wrap', role: 'region', 'aria-labelledby': captionId, tabindex: '0' },
      el('table', null,
        el('caption', { class: 'muted', id: captionId, text: `Deliveries to ${webhook.url}, newest first` }),
        el('thead', null, el('tr', null,
          el('th', { scope: 'col', text: 'When' }), el('th', { scope: 'col', text: 'Event' }),
          el('th', { scope: 'col', text: 'Status' }), el('th', { scope: 'col', class: 'num', text: 'Attempts' }),
          el('th', { scope: 'col', text: 'Answer' }))),
        rows)),
    more);
  log.addEventListener('toggle', () => {
    if (log.open) loadLog().catch((error) => notice(explain(error), 'error'));
  });

  const test = el('button', { type: 'button', class: 'secondary test-webhook', text: 'Send test',
    'aria-label': `Send test to ${webhook.url}` });
  test.addEventListener('click', () => act(test, {
    key: 'webhook-test', progress: 'Sending a test…',
    done: async () => {
      if (log.open) await loadLog(); else log.open = true; // opening it loads it
      return `A test (ping) is on its way to ${webhook.url}; its delivery log shows how it went.`;
    },
  }, () => api.post(`/api/me/webhooks/${webhook.id}/test`)));

  const remove = el('button', { type: 'button', class: 'secondary delete-webhook', text: 'Delete',
    'aria-label': `Delete webhook ${webhook.url}` });
  const confirmBox = confirmFirst(remove, {
    id: `delete-q-${webhook.id}`,
    question: `Delete the webhook to ${webhook.url}? Nothing more is sent to it, and its delivery log goes too.`,
    onYes: (yes) => removeListed(yes, {
      list: 'webhooks', item: 'li.webhook', key: 'webhook-delete', progress: 'Deleting the webhook…',
      reload: async () => {
        // Its secret, if it is still shown, is of no use any more.
        const shown = document.getElementById('new-webhook-box');
        if (shown && shown.dataset.id === webhook.id) shown.remove();
        await loadWebhooks();
      },
      said: `The webhook to ${webhook.url} is deleted.`, fallback: 'webhook-url',
    }, () => api.delete(`/api/me/webhooks/${webhook.id}`)),
  });

  return el('li', { class: 'webhook', 'data-id': webhook.id },
    el('div', { class: 'row' },
      el('span', null, el('strong', { class: 'webhook-url', text: webhook.url }),
        webhook.disabled_at ? [' ', el('span', { class: 'badge warn', text: 'disabled' })] : null, el('br'),
        el('span', { class: 'webhook-events', text: `Events: ${webhook.events.join(', ')}` }), el('br'),
        el('span', { class: 'muted', text: webhook.disabled_at
          ? `Added ${when(webhook.created_at)} · disabled ${when(webhook.disabled_at)}: its last 20 deliveries all failed`
          : `Added ${when(webhook.created_at)}` })),
      el('span', { class: 'actions' }, test, remove)),
    confirmBox, log);
}

async function loadWebhooks() {
  const webhooks = await api.get('/api/me/webhooks');
  fill(document.getElementById('webhooks'), webhooks.length ? webhooks.map(renderWebhook)
    : el('li', { class: 'muted', id: 'no-webhooks', text: 'No webhooks yet.' }));
}

document.getElementById('webhook-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = document.getElementById('webhook-url');
  const button = event.submitter || event.target.querySelector('button[type="submit"]');
  const url = input.value.trim();
  const events = [...document.querySelectorAll('#webhook-events input[name="event"]:checked')].map((box) => box.value);
  if (!checkText(input, { limit: WEBHOOK_URL_LIMIT })) return;
  const missing = {};
  if (!url) missing.url = 'Enter the https address of your endpoint.';
  if (!events.length) missing.events = 'Choose at least one event.';
  if (Object.keys(missing).length) {
    webhookErrors(missing);
    return;
  }
  webhookErrors();
  await holding(button, async () => {
    try {
      const created = await api.post('/api/me/webhooks', { url, events });
      input.value = '';
      const secret = el('code', { class: 'secret', id: 'new-webhook-secret', text: created.secret });
      const copy = copyButton('copy-webhook-secret', 'Copy secret', 'secret', secret);
      fill(document.getElementById('new-webhook'), el('div', { class: 'notice', role: 'status', id: 'new-webhook-box', 'data-id': created.id },
        el('p', null, el('strong', { text: `The signing secret of your webhook to ${created.url}.` }),
          ' Copy it now: it is shown only this once.'),
        secret,
        el('p', null, 'Your endpoint uses it to check the ', el('code', { text: 'webhook-signature' }),
          ' header of every delivery (Standard Webhooks: an HMAC-SHA256 of the ', el('code', { text: 'webhook-id' }),
          ', the ', el('code', { text: 'webhook-timestamp' }), ' and the body). If you lose it, delete the webhook and add it again.'),
        el('div', { class: 'actions' }, copy)));
      notice('');
      await loadWebhooks();
    } catch (error) {
      const fields = {};
      let general = '';
      if (error instanceof ApiError && error.code === 'validation_failed' && error.details.length) {
        for (const detail of error.details) {
          if (Object.hasOwn(WEBHOOK_FIELDS, detail.field)) fields[detail.field] = sentence(detail.message);
          else general = explain(error);
        }
      } else {
        general = explain(error);
      }
      webhookErrors(fields, general);
    }
  });
});

async function loadActivity(more = false) {
  const query = more && activityCursor ? `&before=${encodeURIComponent(activityCursor)}` : '';
  const page = await api.get(`/api/activity?limit=25${query}`);
  const rows = page.items.map((entry) => el('tr', null,
    el('td', { class: 'nowrap', text: short(entry.at) }),
    // In words, with the action or route the log records beside them.
    el('td', null, activityWords(entry), ' ', el('code', { class: 'activity-route', text: entry.action })),
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
  if (!checkText(input, { limit: KEY_NAME_LIMIT, blank: 'Name the key first, after the tool that will use it.' })) return;
  const scopes = [...document.querySelectorAll('#key-scopes input[name="scope"]:checked')].map((box) => box.value);
  const scopesError = document.getElementById('key-scopes-error');
  if (!scopes.length) {
    scopesError.textContent = 'Choose at least one thing the key may do; nothing was created.';
    document.querySelector('#key-scopes input').focus();
    return;
  }
  scopesError.textContent = '';
  const expiry = document.getElementById('key-expiry').value;
  await act(event.submitter || event.target.querySelector('button[type="submit"]'), {
    key: 'key-create', progress: 'Creating the key…',
    done: async (created) => {
      input.value = '';
      input.dispatchEvent(new Event('input'));
      const value = el('code', { class: 'secret', id: 'new-key-value', text: created.key });
      fill(document.getElementById('new-key'), el('div', { class: 'notice', role: 'status' },
        el('p', null, el('strong', { text: `Your new key “${created.name}”.` }),
          ' Copy it now: it is shown only this once.'),
        value, el('div', { class: 'actions' }, copyButton('copy-api-key', 'Copy key', 'key', value))));
      await loadKeys();
      return null;
    },
  }, () => api.post('/api/me/api-keys', { name: input.value.trim(), scopes, expires_in_days: expiry ? Number(expiry) : null }));
});

document.getElementById('export').addEventListener('click', (event) => act(event.target, {
  key: 'export', progress: 'Gathering your data…',
  done: (data) => {
    const blob = new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const link = el('a', { href: url, download: 'discovery-export.json' });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    return 'Your data is downloaded as discovery-export.json.';
  },
}, () => api.get('/api/me/export')));

document.getElementById('delete-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const field = document.getElementById('delete-confirm');
  if (!me || field.value.trim().toLowerCase() !== me.email.toLowerCase()) {
    refuse(field, 'That is not your e-mail address; nothing was deleted.');
    return;
  }
  accept(field);
  const deleted = await act(event.target.querySelector('button[type="submit"]'), {
    key: 'delete-account', progress: 'Deleting your account and everything in it…',
    done: () => 'Your account is deleted; leaving…',
    failure: (error) => (error instanceof ApiError ? null : 'The account could not be deleted: the service could not be reached. Nothing was deleted.'),
  }, () => api.delete('/api/me').then(() => true));
  if (deleted) location.assign('/login?deleted=1');
});

/** Every zone this browser knows, the account's own and the browser's among them. */
function zoneNames(current) {
  let names = [];
  try {
    names = Intl.supportedValuesOf('timeZone');
  } catch {
    names = [];
  }
  return [...new Set([current, browserTimeZone(), 'UTC', ...names].filter(Boolean))];
}

/** Every zone, as the picker's choices (time-zones.js); filled once the account's is read. */
let zones = [];

/** Shows the choices that match the search, keeping the chosen zone when it still matches. */
function showZones() {
  const select = document.getElementById('time-zone');
  const query = document.getElementById('time-zone-search').value;
  const wanted = select.value;
  const shown = matching(zones, query);
  if (shown.length) accept(document.getElementById('time-zone-search'));
  fill(select, shown.map((choice) => el('option', { value: choice.zone, text: choice.label })));
  if (shown.some((choice) => choice.zone === wanted)) select.value = wanted;
  document.getElementById('time-zone-found').textContent = !query.trim() ? `${zones.length} time zones.`
    : shown.length ? `${shown.length} of ${zones.length} time zones match “${query.trim()}”.`
      : `No time zone matches “${query.trim()}”; try a larger city nearby, or the country.`;
}

async function loadTimeZone() {
  await timeZoneSettled;
  const settings = await api.get('/api/me/settings');
  zones = zoneChoices(zoneNames(settings.time_zone), browserTimeZone());
  const select = document.getElementById('time-zone');
  document.getElementById('time-zone-search').value = '';
  fill(select, el('option', { value: settings.time_zone, text: settings.time_zone }));
  select.value = settings.time_zone;
  showZones();
}

document.getElementById('time-zone-search').addEventListener('input', showZones);

document.getElementById('time-zone-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const select = document.getElementById('time-zone');
  const button = document.getElementById('save-time-zone');
  if (!select.value) {
    refuse(document.getElementById('time-zone-search'), 'No time zone matches this search: change it, then choose one.');
    return;
  }
  accept(select);
  await act(button, {
    key: 'time-zone', progress: 'Saving your time zone…',
    done: (settings) => {
      select.value = settings.time_zone;
      showTimesIn(settings.time_zone);
      // Chosen here: the browser never replaces it.
      try { localStorage.setItem(TIME_ZONE_KEY, '1'); } catch { /* private mode */ }
      return `Your days and weeks now follow ${settings.time_zone}.`;
    },
    failure: (error) => {
      if (error instanceof ApiError && error.status === 422) {
        refuse(select, 'That time zone is not known here; choose another.');
        return 'Nothing was changed.';
      }
      return null;
    },
  }, () => api.put('/api/me/settings', { time_zone: select.value }));
});

async function main() {
  // Times are shown in the account's zone.
  [me] = await Promise.all([api.get('/api/me'), timeZoneSettled]);
  fill(document.getElementById('me'), el('div', { class: 'card' },
    el('p', null, el('strong', { id: 'me-email', text: me.email }), me.name ? ` (${me.name})` : null,
      me.is_admin ? el('span', { class: 'badge', text: 'administrator' }) : null),
    el('p', { class: 'muted', text: `Member since ${when(me.created_at)}` })));
  await Promise.all([loadTimeZone(), loadSessions(), loadKeys(), loadNotifications(), loadWebhooks(), loadActivity()]);
}

main().catch((error) => notice(explain(error), 'error'));
