// Accessibility of every page, in the state where its controls show: each control has an
// accessible name, every Tab stop shows a visible focus indicator (and every control is
// reachable by Tab), and every visible text meets the WCAG 2.1 AA contrast ratio. The main
// actions are done with the keyboard alone: dev login, answering prompts (Enter and Space),
// creating the profile, editing and saving a profile field, classifying time on the dashboard
// and moving a rule. The states that say something beside a control are audited too: an answer
// refused with its counter over the limit, a failed reflection turn with "Try again", the
// question before revisiting an affirmed profile.
// Run through ./run.sh, which starts the service and sets BASE_URL.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, ANSWERS, launch, watch, idle, apiAs, answerThroughApi, settle } from './helpers.mjs';
import { unnamedControls, tabWalk, lowContrast } from './a11y-checks.mjs';

const EMAIL = 'ada@example.org';

let browser;
let context;
let page;
let api;
const problems = [];

before(async () => {
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = watch(await context.newPage(), problems);
  api = apiAs(context);
});

after(async () => {
  if (browser) await browser.close();
});

/** The three checks on the page as it is now, as subtests named after `label`. */
async function audit(t, label) {
  await idle(page);
  await t.test(`${label}: every input, select, textarea and button has an accessible name`, async () => {
    assert.deepEqual(await unnamedControls(page), []);
  });
  await t.test(`${label}: text contrast is at least 4.5:1 (3:1 for large text)`, async () => {
    assert.deepEqual(await lowContrast(page), []);
  });
  await t.test(`${label}: every Tab stop shows a visible focus indicator; every control is reachable`, async () => {
    const walk = await tabWalk(page);
    assert.deepEqual(walk.problems, []);
    assert.ok(walk.stops.length >= 2, `only ${walk.stops.length} Tab stops: ${walk.stops.join(', ')}`);
  });
}

/** Presses Tab until the focused element matches `selector`. */
async function tabTo(selector, limit = 80) {
  for (let i = 0; i < limit; i += 1) {
    if (await page.evaluate((s) => document.activeElement && document.activeElement.matches(s), selector)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`Tab never reached ${selector}`);
}

async function focusedId() {
  return page.evaluate(() => document.activeElement && document.activeElement.id);
}

test('sign-in page with dev login', async (t) => {
  await page.goto(`${BASE}/login`);
  await page.locator('#dev').waitFor({ state: 'visible' });
  await audit(t, 'sign-in');
});

test('sign-in page explaining a failed sign-in', async (t) => {
  await page.goto(`${BASE}/login?error=email_not_verified`);
  await page.locator('#notice.error', { hasText: 'not verified' }).waitFor();
  await page.locator('#dev').waitFor({ state: 'visible' });
  await audit(t, 'sign-in error');
});

test('keyboard only: the dev login form is filled and submitted', async () => {
  await page.goto(`${BASE}/login`);
  await page.locator('#dev').waitFor({ state: 'visible' });
  await tabTo('#dev-email');
  await page.keyboard.type(EMAIL);
  await Promise.all([page.waitForURL(`${BASE}/`), page.keyboard.press('Enter')]);
  await page.locator('#greeting', { hasText: EMAIL }).waitFor();
});

test('home page of a new person', async (t) => {
  await page.locator('#next .card').first().waitFor();
  await audit(t, 'home');
});

test('keyboard only: prompts answered, going on with Enter and with Space, and back', async () => {
  await page.goto(`${BASE}/discovery.html`);
  await page.locator('#step-label', { hasText: 'Step 1 of 7' }).waitFor();
  assert.equal(await focusedId(), 'answer', 'the answer field has focus when a prompt shows');
  await page.keyboard.type(ANSWERS[0]);
  await tabTo('#step-form button[type="submit"]');
  await page.keyboard.press('Enter');
  await page.locator('#step-label', { hasText: 'Step 2 of 7' }).waitFor();

  assert.equal(await focusedId(), 'answer');
  await page.keyboard.type(ANSWERS[1]);
  await tabTo('#step-form button[type="submit"]');
  await page.keyboard.press('Space');
  await page.locator('#step-label', { hasText: 'Step 3 of 7' }).waitFor();

  const saved = await api.get('/discovery/conversation/me');
  assert.deepEqual(saved.body.answers.map((a) => a.text), [ANSWERS[0], ANSWERS[1]]);

  // Back to step 2 with the keyboard: the saved answer is there.
  await tabTo('#step-form button.secondary');
  await page.keyboard.press('Enter');
  await page.locator('#step-label', { hasText: 'Step 2 of 7' }).waitFor();
  assert.equal(await page.locator('#answer').inputValue(), ANSWERS[1]);
});

test('discovery: a prompt with its controls', async (t) => {
  await page.locator('#step-form button.secondary').waitFor();
  await audit(t, 'discovery prompt');
});

test('discovery: an answer refused beside the field, its counter over the limit', async (t) => {
  await page.fill('#answer', 'x'.repeat(10001));
  await page.click('#step-form button[type="submit"]');
  await page.locator('#answer-error', { hasText: 'over the limit' }).waitFor();
  await page.locator('#answer-count.over').waitFor();
  await audit(t, 'discovery refusal');
});

test('discovery: the review of all seven answers', async (t) => {
  await answerThroughApi(api, 3);
  await page.reload();
  await page.locator('#complete').waitFor();
  await audit(t, 'discovery review');
});

test('keyboard only: the profile is created from the review', async () => {
  await page.reload();
  await page.locator('#complete').waitFor();
  await tabTo('#complete');
  await Promise.all([page.waitForURL(`${BASE}/profile.html`), page.keyboard.press('Enter')]);
  await page.locator('#triad').waitFor();
});

test('keyboard only: a profile field is edited and saved', async () => {
  const text = 'To help small teams build software that lasts, with care.';
  await page.locator('button[aria-label="Edit Your mission"]').waitFor();
  await tabTo('button[aria-label="Edit Your mission"]');
  await page.keyboard.press('Enter');
  await page.locator('#edit-mission_summary').waitFor();
  assert.equal(await focusedId(), 'edit-mission_summary', 'the field being edited has focus');
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(text);
  await tabTo('#field-mission_summary button[type="submit"]');
  await page.keyboard.press('Enter');
  await page.locator('#field-mission_summary p.value', { hasText: text }).waitFor();
  // The keyboard stays where it was: on the field's Edit button.
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Edit Your mission');
  const saved = await api.get('/discovery/profile/me');
  assert.equal(saved.body.mission_summary, text);
  assert.equal(saved.body.version, 2);

  // Cancel by keyboard leaves the field as it was, the keyboard on its Edit button.
  await page.keyboard.press('Enter');
  await page.locator('#edit-mission_summary').waitFor();
  await page.keyboard.type(' Not this.');
  await tabTo('#field-mission_summary button.secondary');
  await page.keyboard.press('Enter');
  await page.locator('#field-mission_summary p.value', { hasText: text }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Edit Your mission');
  assert.equal((await api.get('/discovery/profile/me')).body.version, 2);
});

test('profile (draft): fields, an edit open, the coach, the affirm question, the history', async (t) => {
  const opener = await api.post('/discovery/profile/me/reflect', { opener: true });
  assert.equal(opener.status, 200);
  const turn = await api.post('/discovery/profile/me/reflect', { message: 'My strength is patience, really.' });
  assert.equal(turn.status, 200);
  await page.reload();
  await page.locator('#chat li.person').waitFor();
  await page.click('button[aria-label="Edit Your vocation"]');
  await page.locator('#edit-vocation_summary').waitFor();
  await page.click('#affirm-start');
  await page.locator('#affirm-confirm').waitFor({ state: 'visible' });
  await page.locator('#revisions details').first().waitFor();
  await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
  // A failed turn (the model did not answer), said beside Send with "Try again".
  const failed = { error: { code: 'coach_unavailable', message: 'The coach is unavailable.' } };
  const fail = (route) => route.fulfill({ status: 502, contentType: 'application/json', body: JSON.stringify(failed) });
  await page.route('**/discovery/profile/me/reflect', fail);
  await page.fill('#reflect-message', 'And I like teaching.');
  await page.click('#reflect-form button[type="submit"]');
  await page.locator('#status-reflect button.retry').waitFor();
  await page.unroute('**/discovery/profile/me/reflect', fail);
  await audit(t, 'profile (draft)');
});

test('profile (affirmed, locked)', async (t) => {
  assert.equal((await api.post('/discovery/profile/me/affirm')).status, 200);
  await page.reload();
  await page.locator('#locked-note').waitFor();
  await page.locator('#revisions li').first().waitFor();
  await page.click('#profile-reopen-start');
  await page.locator('#profile-reopen-confirm').waitFor({ state: 'visible' });
  await audit(t, 'profile (locked)');
});

test('coaching: preferences and check-ins, one answered and one open', async (t) => {
  const first = await api.post('/coaching/checkins');
  assert.equal(first.status, 201);
  assert.equal((await api.post(`/coaching/checkins/${first.body.id}/response`, { still_valid: true, note: 'Yes.' })).status, 200);
  assert.equal((await api.post('/coaching/checkins')).status, 201);
  await page.goto(`${BASE}/coaching.html`);
  await page.locator('#pref-source').waitFor();
  await page.locator('#checkin-list .still-holds').waitFor();
  await page.locator('#checkin-list .response').waitFor();
  await audit(t, 'coaching');
});

test('dashboard with logged time', async (t) => {
  const now = Date.now();
  for (const [i, [foundation, minutes, daysAgo]] of [['love', 90, 0], ['mission', 120, 1], ['vocation', 240, 2]].entries()) {
    const created = await api.post('/integration/task-mappings', {
      external_task_id: `a11y-${i}`, task_label: `Task ${i}`, foundation, minutes,
      occurred_at: new Date(now - daysAgo * 86400000 - 3600000).toISOString(),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  }
  // Time without a foundation (the Unclassified panel), and a rule (the rules list).
  for (const [i, [label, tags, minutes]] of [['Weekly sync', ['project:web'], 60], [null, ['reading'], 30], [null, [], 15]].entries()) {
    const created = await api.post('/integration/task-mappings', {
      external_task_id: `a11y-unmapped-${i}`, task_label: label, tags, minutes,
      occurred_at: new Date(now - i * 86400000 - 3600000).toISOString(),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.foundation, null);
  }
  const rule = await api.post('/integration/rules', { match: { label_contains: 'standup' }, foundation: 'mission' });
  assert.equal(rule.status, 201, JSON.stringify(rule.body));
  await page.goto(`${BASE}/dashboard.html`);
  await page.locator('svg.chart g.row.neglected').first().waitFor();
  await page.locator('#daily-table tbody tr').first().waitFor();
  await page.locator('#unmapped li.unmapped-group select').first().waitFor();
  await page.locator('#rules li.rule').first().waitFor();
  await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
  await audit(t, 'dashboard');
});

test('dashboard: the delete confirmation of a rule open', async (t) => {
  await page.locator('#rules li.rule button.delete-rule').first().click();
  await page.locator('#rules li.rule .delete-confirm').first().waitFor({ state: 'visible' });
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Yes, delete it');
  await audit(t, 'dashboard (delete confirmation)');
});

test('keyboard only: a group is classified from the dashboard and a rule moved down and up', async () => {
  await page.goto(`${BASE}/dashboard.html`);
  await page.locator('#unmapped li.unmapped-group select').first().waitFor();
  await idle(page);
  const before = Number(await page.locator('svg.chart g.row[data-foundation="vocation"]').getAttribute('data-minutes'));
  await tabTo('#unmapped li.unmapped-group select');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Foundation for “Weekly sync”');
  // Typing picks an option of a closed select, as it does for a keyboard user.
  await page.keyboard.press('v');
  assert.equal(await page.evaluate(() => document.activeElement.value), 'vocation');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Classify “Weekly sync”');
  await page.keyboard.press('Enter');
  await page.locator('#status-classify', { hasText: 'A new rule classifies “Weekly sync” as Vocation.' }).waitFor();
  await page.waitForFunction((n) => Number(document.querySelector('svg.chart g.row[data-foundation="vocation"]').dataset.minutes) === n, before + 60);
  // The keyboard goes on to the next group.
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Foundation for “reading”');
  const rules = async () => (await api.get('/integration/rules')).body.map((r) => Object.values(r.match)[0]);
  assert.deepEqual(await rules(), ['standup', 'Weekly sync']);

  await tabTo('#rules li.rule button.move-down');
  await page.keyboard.press('Enter');
  await page.locator('#status-rule', { hasText: 'Label contains “standup” is now rule 2.' }).waitFor();
  assert.deepEqual(await rules(), ['Weekly sync', 'standup']);
  // The keyboard stays with the rule it moved (at the end now, so on its Move up).
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Move up: rule 2, Label contains “standup” to Mission');
  await page.keyboard.press('Space');
  await page.locator('#status-rule', { hasText: 'Label contains “standup” is now rule 1.' }).waitFor();
  assert.deepEqual(await rules(), ['standup', 'Weekly sync']);
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Move down: rule 1, Label contains “standup” to Mission');
});

test('account: a new key shown, another session, older activity, a refused deletion', async (t) => {
  const other = await fetch(`${BASE}/api/auth/dev-login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'User-Agent': 'Other device' },
    body: JSON.stringify({ email: EMAIL }),
  });
  assert.equal(other.status, 200);
  for (let i = 0; i < 30; i += 1) assert.equal((await api.get('/api/me')).status, 200);
  await settle();
  await page.goto(`${BASE}/account.html`);
  await page.locator('#me-email', { hasText: EMAIL }).waitFor();
  await page.fill('#key-name', 'Tracker');
  await page.click('#key-form button[type="submit"]');
  await page.locator('#new-key-value').waitFor();
  await page.locator('#more-activity').waitFor({ state: 'visible' });
  await page.locator('#sessions li.session[data-current="false"]').first().waitFor();
  await page.fill('#delete-confirm', 'someone.else@example.org');
  await page.click('#delete-form button[type="submit"]');
  await page.locator('#delete-confirm-error[role="alert"]', { hasText: 'nothing was deleted' }).waitFor();
  await audit(t, 'account');
});

test('discovery once complete', async (t) => {
  await page.goto(`${BASE}/discovery.html`);
  await page.locator('#stage h2', { hasText: 'complete' }).waitFor();
  await audit(t, 'discovery complete');
});

test('every page at phone width', async (t) => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const desktop = page;
  try {
    page = watch(await phone.newPage(), problems);
    await page.goto(`${BASE}/login`);
    await page.locator('#dev').waitFor({ state: 'visible' });
    await audit(t, 'phone sign-in');
    await page.fill('#dev-email', EMAIL);
    await Promise.all([page.waitForURL(`${BASE}/`), page.click('#dev-form button[type="submit"]')]);
    for (const [name, ready] of [['/', '#next .card'], ['/discovery.html', '#stage h2'], ['/profile.html', '#locked-note'],
      ['/coaching.html', '#checkin-list li'], ['/dashboard.html', 'svg.chart g.row'], ['/account.html', '#activity tr']]) {
      await page.goto(`${BASE}${name}`);
      await page.locator(ready).first().waitFor();
      await audit(t, `phone ${name}`);
    }
  } finally {
    page = desktop;
    await phone.close();
  }
});

test('the navigation tells assistive technology which page this is, on every page', async () => {
  for (const [path, label] of [['/', 'Home'], ['/index.html', 'Home'], ['/discovery.html', 'Discovery'],
    ['/profile.html', 'Profile'], ['/coaching.html', 'Coaching'], ['/dashboard.html', 'Dashboard'],
    ['/account.html', 'Account']]) {
    await page.goto(`${BASE}${path}`);
    await idle(page);
    assert.equal(new URL(page.url()).pathname, path);
    assert.deepEqual(await page.locator('nav.main a[aria-current="page"]').allTextContents(), [label], path);
  }
});

test('no console errors on any page', () => {
  assert.deepEqual(problems, []);
});
