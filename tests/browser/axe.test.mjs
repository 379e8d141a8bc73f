// axe-core (npm, pinned in package.json) on every page and the states it shows, at 1280 and
// 390 px: signed out (sign-in, a failed sign-in, the 404 page), a new person (home, discovery,
// an empty dashboard, coaching, account), and a person with a profile and logged time (profile,
// dashboard with its help and its weekly table open, account with a new key). The error state
// is the sign-in page explaining a failed sign-in. Any violation
// fails, named with its rule and the elements it found. /docs (Swagger UI) is left out.
// The context bypasses the pages' CSP only so that the test can inject axe itself.
// Run through ./run.sh, which starts the service and sets BASE_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { BASE, WIDTHS, sharedBrowser, watch, devLogin, idle, apiAs, profileThroughApi } from './helpers.mjs';

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

async function audit(page, url, prepare = async () => {}) {
  await page.goto(`${BASE}${url}`);
  await idle(page);
  await prepare();
  return (await violations(page)).map((line) => `${url}: ${line}`);
}

async function contextAt(size) {
  return shared.browser.newContext(size.width < 600
    ? { viewport: size, isMobile: true, hasTouch: true, bypassCSP: true }
    : { viewport: size, bypassCSP: true });
}

for (const size of WIDTHS) {
  test(`axe finds no violation on any page or state (${size.width} px)`, async () => {
    const problems = [];
    const context = await contextAt(size);
    const page = watch(await context.newPage(), problems);
    const found = [];
    try {
      found.push(...await audit(page, '/login'));
      found.push(...await audit(page, '/login?error=access_denied'));
      found.push(...await audit(page, '/no-such-page'));

      await devLogin(page, `axe-${size.width}@example.org`);
      for (const url of ['/', '/discovery.html', '/dashboard.html', '/coaching.html', '/account.html']) {
        found.push(...await audit(page, url));
      }

      const api = apiAs(context);
      await profileThroughApi(api);
      const now = Date.now();
      const items = [0, 1, 2, 9, 16].map((days, i) => ({ external_task_id: `a-${i}`, task_label: i % 2 ? 'Inbox' : 'Writing',
        foundation: i % 2 ? null : 'vocation', minutes: 60 + i * 10, occurred_at: new Date(now - days * 86400000 - 3600000).toISOString() }));
      assert.equal((await api.post('/integration/task-mappings/batch', { items })).status, 200);
      found.push(...await audit(page, '/profile.html'));
      found.push(...await audit(page, '/dashboard.html', async () => {
        await page.locator('svg.weekly-chart').waitFor();
        await page.click('details.foundations-help summary');
        await page.click('details.weekly-numbers summary');
      }));
      found.push(...await audit(page, '/account.html', async () => {
        await page.fill('#key-name', 'axe');
        await page.click('#key-form button[type="submit"]');
        await page.locator('#new-key-value').waitFor();
      }));
      assert.deepEqual(found, []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
