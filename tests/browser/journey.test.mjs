// The whole product through its pages, in Debian's Chromium driven by playwright-core:
// sign in (dev login), the seven prompts (resuming, an answer with markup shown as text), the
// profile (edit, reflect, silent refresh, affirm, locked), coaching (preferences, a check-in and
// its response), account (API key, sessions, activity), the dashboard fed through the API with
// that key, sign-out; no console errors anywhere; screenshots at phone and desktop width.
// Run through ./run.sh, which starts the service and sets BASE_URL and SCREENSHOTS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, watch as watchFor, shot, devLogin as devLoginAs, idle } from './helpers.mjs';

const EMAIL = 'robin@example.org';
const XSS = '<img src=x onerror=alert(1)>';
const PAGES = ['/', '/discovery.html', '/profile.html', '/coaching.html', '/dashboard.html', '/account.html'];

let browser;
let context;
let page;
const problems = [];
let apiKey = null;

function watch(p) {
  return watchFor(p, problems);
}

function devLogin(p, email = EMAIL) {
  return devLoginAs(p, email);
}

before(async () => {
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  watch(page);
});

after(async () => {
  if (browser) await browser.close();
});

test('signed out, a page sends the person to the sign-in page', async () => {
  await page.goto(`${BASE}/profile.html`);
  await page.waitForURL(/\/login\?redirect=/);
  assert.equal(await page.locator('h1').textContent(), 'Sign in');
});

test('a failed sign-in is explained in words', async () => {
  await page.goto(`${BASE}/login?error=access_denied`);
  await assert.doesNotReject(page.locator('#notice', { hasText: 'declined' }).waitFor());
  await shot(page, 'login');
});

test('a redirect that the URL parser would turn into another origin is refused', async () => {
  // `%09` is a tab: the parser strips it, which would leave `//evil.example`. A fresh context,
  // so the journey's own sign-in below starts signed out.
  const other = await browser.newContext();
  const p = await other.newPage();
  watch(p);
  for (const redirect of ['%2F%09%2Fevil.example', '%2F%5C%5Cevil.example', 'https%3A%2F%2Fevil.example']) {
    await p.goto(`${BASE}/login?redirect=${redirect}`);
    await p.locator('#dev').waitFor({ state: 'visible' });
    await p.fill('#dev-email', 'redirect-probe@example.org');
    await Promise.all([p.waitForURL(`${BASE}/`), p.click('#dev-form button[type="submit"]')]);
    assert.equal(new URL(p.url()).origin, new URL(BASE).origin, redirect);
  }
  // A same-origin path is kept.
  await p.goto(`${BASE}/login?redirect=%2Fprofile.html`);
  await p.locator('#dev').waitFor({ state: 'visible' });
  await p.fill('#dev-email', 'redirect-probe@example.org');
  await Promise.all([p.waitForURL(`${BASE}/profile.html`), p.click('#dev-form button[type="submit"]')]);
  await other.close();
});

test('dev login signs in and lands on the home page', async () => {
  await devLogin(page);
  await page.locator('#greeting', { hasText: EMAIL }).waitFor();
  await idle(page);
  await shot(page, 'home-new');
});

test('the seven prompts, one at a time, resuming where the person left off', async () => {
  await page.goto(`${BASE}/discovery.html`);
  const answers = [
    `I love long walks with my daughter and cooking for friends. ${XSS}`,
    'I am good at explaining hard things simply and staying calm when things go wrong.',
    'I want to help small teams build software that lasts.',
    'I could be paid for teaching and mentoring engineers.',
    'I am driven by wanting things to be right; under pressure I get critical of myself.',
    'Publish the course I have been drafting.',
    '',
  ];
  for (let step = 1; step <= 7; step += 1) {
    await page.locator('#step-label', { hasText: `Step ${step} of 7` }).waitFor();
    if (step === 6) {
      await page.locator('.badge', { hasText: '6-12 months' }).waitFor();
      await shot(page, 'discovery');
    }
    if (step === 7) await page.locator('.badge', { hasText: '3-5 years' }).waitFor();
    await page.fill('#answer', answers[step - 1]);
    await page.click('#step-form button[type="submit"]');
    if (step === 3) {
      // Saved as given: a reload resumes at the next step.
      await page.locator('#step-label', { hasText: 'Step 4 of 7' }).waitFor();
      await page.reload();
    }
  }
  await page.locator('#complete').waitFor();
  // The markup in the first answer is text on the page, never an element.
  await page.locator('#stage', { hasText: XSS }).waitFor();
  assert.equal(await page.locator('#stage img').count(), 0);
  await Promise.all([page.waitForURL(`${BASE}/profile.html`), page.click('#complete')]);
});

test('the profile shows type and triad and its fields edit in place', async () => {
  await page.locator('#triad').waitFor();
  assert.match(await page.locator('#triad').textContent(), /triad/);
  // Each field shows the person's own words it rests on, with the prompt they answered; the
  // markup quoted from the first answer stays text.
  // The quotes are folded under each field: opened, they show.
  const love = page.locator('#provenance-love_summary');
  await love.locator('summary.provenance-title', { hasText: 'From your words' }).click();
  await love.locator('q', { hasText: 'long walks with my daughter' }).waitFor();
  assert.match(await love.textContent(), /your answer to “.+”/);
  await page.locator('#provenance-near_term_goal_summary summary').click();
  await page.locator('#provenance-near_term_goal_summary q', { hasText: 'Publish the course' }).waitFor();
  assert.equal(await page.locator('#fields img').count(), 0);
  await page.click('button[aria-label="Edit Your mission"]');
  await page.fill('#edit-mission_summary', 'To help small teams build software that lasts, and to enjoy it.');
  await page.click('#field-mission_summary button[type="submit"]');
  await page.locator('#field-mission_summary p.value', { hasText: 'and to enjoy it.' }).waitFor();
  await page.locator('#revisions li', { hasText: 'Edited by you' }).waitFor();
  // A field the person wrote rests on no quote: it says so.
  await page.locator('#provenance-mission_summary', { hasText: 'Written by you.' }).waitFor();
});

test('reflection: the opener, a turn, and the history with a diff', async () => {
  await page.click('#opener');
  await page.locator('#chat li.coach').first().waitFor();
  // The built-in coach answered: the page says once what it reads.
  await page.locator('#coach-reads', { hasText: 'reads English' }).waitFor();
  await page.fill('#reflect-message', `My strength is patience, really. ${XSS}`);
  await page.click('#reflect-form button[type="submit"]');
  await page.locator('#chat li.person', { hasText: 'patience' }).waitFor();
  await page.locator('#chat li.coach').nth(1).waitFor();
  assert.equal(await page.locator('#chat img').count(), 0);
  assert.equal(await page.locator('#coach-reads').count(), 1);
  const edited = page.locator('#revisions li', { hasText: 'Edited by you' }).first();
  await edited.locator('summary').click();
  await edited.locator('ins', { hasText: 'and to enjoy it.' }).waitFor();
  await idle(page);
  await shot(page, 'profile-draft');
});

test('silent refresh: without the access cookie the next action still works', async () => {
  await context.clearCookies({ name: 'ds_access' });
  assert.equal((await context.cookies()).some((c) => c.name === 'ds_access'), false);
  await page.click('button[aria-label="Edit Your vocation"]');
  await page.fill('#edit-vocation_summary', 'Teaching and mentoring engineers.');
  await page.click('#field-vocation_summary button[type="submit"]');
  await page.locator('#field-vocation_summary p.value', { hasText: 'Teaching and mentoring engineers.' }).waitFor();
  assert.equal((await context.cookies()).some((c) => c.name === 'ds_access'), true);
});

test('affirming asks first, then locks the profile read-only', async () => {
  await page.click('#affirm-start');
  await page.locator('#affirm-confirm').waitFor({ state: 'visible' });
  await page.click('#affirm-yes');
  await page.locator('#locked-note').waitFor();
  await page.locator('#locked-badge').waitFor();
  assert.equal(await page.locator('#fields button').count(), 0);
  assert.equal(await page.locator('#reflect-form').count(), 0);
  await page.reload();
  await page.locator('#locked-note').waitFor();
  await idle(page);
  await shot(page, 'profile');
});

test('coaching: preferences derived, overridden, regenerated; a check-in answered', async () => {
  await page.goto(`${BASE}/coaching.html`);
  await page.locator('#pref-source', { hasText: 'Derived from your type' }).waitFor();
  await page.selectOption('#pref-coaching_style', 'warm');
  await page.selectOption('#pref-coaching_frequency', 'monthly');
  await page.click('#preferences-form button[type="submit"]');
  await page.locator('#pref-source', { hasText: 'Your own settings' }).waitFor();
  assert.equal(await page.locator('#pref-coaching_style').inputValue(), 'warm');
  await page.click('#regenerate');
  await page.locator('#pref-source', { hasText: 'Derived from your type' }).waitFor();

  await page.click('#new-checkin');
  const checkin = page.locator('#checkin-list li.checkin').first();
  await checkin.locator('.still-holds').waitFor();
  await checkin.locator('textarea').fill('Yes, still the direction.');
  await checkin.locator('.still-holds').click();
  await page.locator('#checkin-list .response', { hasText: 'Still holds.' }).waitFor();
  await page.locator('#checkin-list .response', { hasText: 'Yes, still the direction.' }).waitFor();
  await idle(page);
  await shot(page, 'coaching');
});

test('account: a personal API key is shown once; another session is revoked', async () => {
  // A second session for the same person, signed in elsewhere.
  const other = await fetch(`${BASE}/api/auth/dev-login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'User-Agent': 'Other device' },
    body: JSON.stringify({ email: EMAIL }),
  });
  assert.equal(other.status, 200);

  await page.goto(`${BASE}/account.html`);
  await page.locator('#me-email', { hasText: EMAIL }).waitFor();
  await page.fill('#key-name', 'Time tracker');
  await page.click('#key-form button[type="submit"]');
  apiKey = (await page.locator('#new-key-value').textContent()).trim();
  assert.ok(apiKey.length > 20);
  const listed = page.locator('#keys li.api-key', { hasText: 'Time tracker' });
  await listed.waitFor();
  // Only what was ticked (integration, the default) and the chosen expiry (90 days).
  assert.equal((await listed.locator('.key-scopes').textContent()).trim(), 'May: integration');
  assert.match(await listed.textContent(), /expires/);
  const profileWithKey = await fetch(`${BASE}/discovery/profile/me`, { headers: { 'X-API-Key': apiKey } });
  assert.equal(profileWithKey.status, 403);
  assert.equal((await profileWithKey.json()).error.code, 'insufficient_scope');

  await page.locator('#sessions li.session').nth(1).waitFor();
  const sessions = page.locator('#sessions li.session[data-current="false"]');
  const before = await sessions.count();
  assert.ok(before >= 1);
  await sessions.first().locator('button.revoke-session').click();
  await sessions.first().locator('button.confirm-delete').click();
  await page.locator('#status-session', { hasText: 'signed out' }).waitFor();
  await page.waitForFunction((n) => document.querySelectorAll('#sessions li.session[data-current="false"]').length === n, before - 1);
  await page.locator('#activity tr').first().waitFor();
  await idle(page);
  await shot(page, 'account');
});

test('dashboard: time posted with the API key, per foundation, with neglected ones marked', async () => {
  const now = Date.now();
  const entries = [
    ['love', 90, 0], ['strength', 45, 1], ['mission', 120, 1], ['vocation', 240, 2],
    ['vocation', 180, 3], ['mission', 60, 5], ['love', 30, 6], ['vocation', 200, 20],
  ];
  for (const [i, [foundation, minutes, daysAgo]] of entries.entries()) {
    const response = await fetch(`${BASE}/integration/task-mappings`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': apiKey },
      body: JSON.stringify({
        external_task_id: `task-${i}`, task_label: `Task ${i}`, foundation, minutes,
        occurred_at: new Date(now - daysAgo * 86400000 - 3600000).toISOString(),
      }),
    });
    assert.equal(response.status, 201, await response.text());
  }
  await page.goto(`${BASE}/dashboard.html`);
  await page.locator('svg.chart g.row').nth(5).waitFor();
  assert.equal(await page.locator('#periods button[aria-pressed="true"]').textContent(), '14 days');
  assert.ok((await page.locator('#summary').textContent()).length > 10);
  assert.ok(await page.locator('svg.chart g.row.neglected').count() >= 1);
  assert.equal(await page.locator('svg.chart g.row[data-foundation="short_term"].neglected').count(), 1);
  assert.ok(await page.locator('#daily-table tbody tr').count() >= 14);
  await page.click('#periods button[data-days="30"]');
  await page.locator('#total', { hasText: '30 days' }).waitFor();
  await page.click('#periods button[data-days="7"]');
  await page.locator('#total', { hasText: '7 days' }).waitFor();
  await idle(page);
  await shot(page, 'dashboard');
  await page.goto(`${BASE}/`);
  await page.locator('#next .card').first().waitFor();
  await idle(page);
  await shot(page, 'home');
});

test('signing out ends the session', async () => {
  await page.click('#sign-out');
  await page.waitForURL(/\/login\?signed_out=1/);
  await page.locator('#notice', { hasText: 'signed out' }).waitFor();
  await page.goto(`${BASE}/account.html`);
  await page.waitForURL(/\/login\?redirect=/);
});

test('every page at phone width', async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const p = await phone.newPage();
  watch(p);
  await p.goto(`${BASE}/login`);
  await p.locator('#dev').waitFor({ state: 'visible' });
  await shot(p, 'login');
  await devLogin(p);
  for (const name of PAGES) {
    await p.goto(`${BASE}${name}`);
    await idle(p);
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${name} scrolls sideways by ${overflow}px at 390px`);
    await shot(p, name === '/' ? 'home' : name.slice(1, -'.html'.length));
  }
  await p.goto(`${BASE}/discovery.html`);
  await idle(p);
  await phone.close();
});

test('no console errors on any page', () => {
  assert.deepEqual(problems, []);
});
