// axe-core (npm, pinned in package.json) on every page and every state the suite shows, at 1280,
// 390 and 320 px (the model's failure at the first two); any violation fails, named with its rule and the elements it found. The states:
// - signed out: sign-in, a failed sign-in explained, the 404 page, the API reference (/docs);
// - a new person: home (at 390 px also with the menu open), discovery, an empty dashboard,
//   coaching, account, the 404 page in the layout (its menu open at 390 px), the review of the
//   seven answers;
// - errors shown: an answer refused beside its field (over the limit), a webhook address the
//   service refuses, a wrong e-mail under "Delete my account", a reflection turn whose model call
//   failed (a 502 answered in the page), and a real model failure: completing the discovery on
//   the third service of run.sh, whose model never answers;
// - a person with a profile, logged time and a check-in: profile (every fold open; then with a
//   second revision, so the history shows "Restore this version"), dashboard
//   with its help and its weekly table open, then 104 weeks, coaching with the check-in,
//   account with a new key shown.
// The context bypasses the pages' CSP only so that the test can inject axe itself.
// Run through ./run.sh, which starts the services and sets BASE_URL and BROKEN_BASE_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  BASE, BROKEN_BASE, WIDTHS, sharedBrowser, watch, devLogin, idle, apiAs, answerThroughApi, profileThroughApi,
} from './helpers.mjs';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');
const shared = sharedBrowser();

/** The violations axe finds on the page as it is now, as readable lines. */
async function violations(page) {
  if (!(await page.evaluate(() => typeof window.axe !== 'undefined'))) await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
  return found;
}

/** Audits `url` once `prepare` has brought the state to show; `name` tells the state apart. */
async function audit(page, url, prepare = async () => {}, name = url) {
  await page.goto(`${BASE}${url}`);
  await idle(page);
  await prepare();
  return (await violations(page)).map((line) => `${name}: ${line}`);
}

/** The phone menu open (js/menu.js); nothing on a desktop, where the links always show. */
async function openMenu(page) {
  if (page.viewportSize().width >= 600) return false;
  await page.click('#menu-toggle');
  await page.locator('#main-menu a').first().waitFor({ state: 'visible' });
  return true;
}

async function contextAt(size) {
  return shared.browser.newContext(size.width < 600
    ? { viewport: size, isMobile: true, hasTouch: true, bypassCSP: true }
    : { viewport: size, bypassCSP: true });
}

/** The widths of the main audit: the suite's two and the narrowest phone in use (320 px). */
const AUDITED = [...WIDTHS, { width: 320, height: 640 }];

for (const size of AUDITED) {
  test(`axe finds no violation on any page or state (${size.width} px)`, async () => {
    const problems = [];
    const context = await contextAt(size);
    const page = watch(await context.newPage(), problems);
    const email = `axe-${size.width}@example.org`;
    const found = [];
    const check = async (url, prepare, name = url) => {
      found.push(...await audit(page, url, prepare, name));
    };
    try {
      await check('/login');
      await check('/login?error=access_denied', async () => {
        await page.locator('#notice.error').waitFor();
      });
      await check('/no-such-page');
      await check('/docs');

      await devLogin(page, email);
      for (const url of ['/', '/discovery.html', '/dashboard.html', '/coaching.html', '/account.html', '/no-such-page']) {
        await check(url);
      }
      for (const url of ['/', '/no-such-page']) {
        if (size.width < 600) await check(url, () => openMenu(page), `${url} (menu open)`);
      }

      // Errors shown beside what caused them.
      const api = apiAs(context);
      await check('/discovery.html', async () => {
        await page.locator('#step-label', { hasText: 'Step 1 of 7' }).waitFor();
        await page.fill('#answer', 'x'.repeat(10001));
        await page.click('#step-form button[type="submit"]');
        await page.locator('#answer-error', { hasText: 'over the limit' }).waitFor();
      }, '/discovery.html (an answer refused)');
      await answerThroughApi(api);
      await check('/discovery.html', async () => {
        await page.locator('#complete').waitFor();
      }, '/discovery.html (the review)');
      await check('/account.html', async () => {
        await page.fill('#webhook-url', 'http://example.org/hook');
        await page.click('#webhook-form button[type="submit"]');
        await page.locator('#webhook-url-error').filter({ hasText: /\S/ }).waitFor();
        await page.fill('#delete-confirm', 'someone.else@example.org');
        await page.click('#delete-form button[type="submit"]');
        await page.locator('#delete-confirm-error[role="alert"]', { hasText: 'nothing was deleted' }).waitFor();
      }, '/account.html (a refused webhook, a refused deletion)');

      // A person with a profile, logged time and a check-in.
      const completed = await api.post('/discovery/conversation/me/complete');
      assert.equal(completed.status, 201, JSON.stringify(completed.body));
      const now = Date.now();
      const items = [0, 1, 2, 9, 16].map((days, i) => ({ external_task_id: `a-${i}`, task_label: i % 2 ? 'Inbox' : 'Writing',
        foundation: i % 2 ? null : 'vocation', minutes: 60 + i * 10, occurred_at: new Date(now - days * 86400000 - 3600000).toISOString() }));
      assert.equal((await api.post('/integration/task-mappings/batch', { items })).status, 200);
      await check('/profile.html', async () => {
        await page.locator('#reflect-form').waitFor();
        await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
      });
      await check('/profile.html', async () => {
        // The model failed: the page shows the service's 502 beside Send, with "Try again".
        const failed = { error: { code: 'coach_unavailable', message: 'The coach is unavailable.' } };
        await page.route('**/discovery/profile/me/reflect', (route) => route.fulfill({
          status: 502, contentType: 'application/json', body: JSON.stringify(failed) }));
        await page.fill('#reflect-message', 'And I like teaching.');
        await page.click('#reflect-form button[type="submit"]');
        await page.locator('#status-reflect button.retry').waitFor();
        await page.unrouteAll();
      }, '/profile.html (a failed reflection turn)');
      // A second revision: the history offers "Restore this version" on the first.
      const edited = await api.patch('/discovery/profile/me', { mission_summary: 'Help small teams build lasting software.' });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      await check('/profile.html', async () => {
        await page.locator('#revisions button.restore').first().waitFor();
        await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
      }, '/profile.html (restore buttons)');
      await check('/dashboard.html', async () => {
        await page.locator('svg.weekly-chart').waitFor();
        await page.click('details.foundations-help summary');
        await page.click('details.weekly-numbers summary');
      }, '/dashboard.html (help and weekly table open)');
      await check('/dashboard.html?weeks=104', async () => {
        await page.locator('svg.weekly-chart g.week').nth(103).waitFor({ state: 'attached' });
      });
      assert.equal((await api.post('/discovery/profile/me/affirm')).status, 200);
      assert.equal((await api.post('/coaching/checkins')).status, 201);
      await check('/coaching.html', async () => {
        await page.locator('#checkin-list li').first().waitFor();
      }, '/coaching.html (a check-in)');
      await check('/account.html', async () => {
        await page.fill('#key-name', 'axe');
        await page.click('#key-form button[type="submit"]');
        await page.locator('#new-key-value').waitFor();
      }, '/account.html (a new key)');
      assert.deepEqual(found, []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

}

for (const size of WIDTHS) {
  test(`axe finds no violation where the model fails (${size.width} px)`, async () => {
    assert.ok(BROKEN_BASE, 'run.sh starts a service whose model always fails');
    const problems = [];
    const context = await contextAt(size);
    const page = watch(await context.newPage(), problems);
    try {
      await devLogin(page, `axe-broken-${size.width}@example.org`, BROKEN_BASE);
      await answerThroughApi(apiAs(context, BROKEN_BASE));
      await page.goto(`${BROKEN_BASE}/discovery.html`);
      await page.locator('#complete').click();
      await page.locator('#status-complete .status-error[role="alert"] button.retry').waitFor();
      assert.deepEqual((await violations(page)).map((line) => `/discovery.html (the model failed): ${line}`), []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
