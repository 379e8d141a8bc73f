// The phone, at 320 and 390 px, for a person with a 60-character e-mail address: no page is
// wider than the screen (home, discovery, profile, coaching, dashboard, account, the 404 page,
// the API reference, sign-in), and the dashboard's bar labels stay inside the chart. Also the 404
// page knows who asks: signed out it shows the signed-out navigation (no "Sign out"), signed in
// the usual one.
// Run through ./run.sh, which starts the service and sets BASE_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BASE, sharedBrowser, contextAt, watch, devLogin, idle, apiAs, profileThroughApi, overflowOf,
} from './helpers.mjs';

const shared = sharedBrowser();
const PHONES = [{ width: 320, height: 640 }, { width: 390, height: 844 }];

/** A 60-character address, different for each width. */
function longEmail(width) {
  const local = `a-rather-long-name-for-a-narrow-screen-${width}-x`.padEnd(48, 'y');
  const email = `${local}@example.org`;
  assert.equal(email.length, 60);
  return email;
}

/** The chart's texts that reach outside it, as readable lines. */
function cutLabels(page) {
  return page.evaluate(() => {
    const svg = document.querySelector('svg.chart');
    const frame = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('text')].map((text) => [text.textContent, text.getBoundingClientRect()])
      .filter(([, box]) => box.left < frame.left - 0.5 || box.right > frame.right + 0.5)
      .map(([words, box]) => `“${words}” spans ${Math.round(box.left - frame.left)}..${Math.round(box.right - frame.left)} of ${Math.round(frame.width)} px`);
  });
}

test('a signed-out 404 shows the signed-out navigation; a signed-in one the usual', async () => {
  const problems = [];
  const context = await contextAt(shared.browser, { width: 1280, height: 900 });
  const page = watch(await context.newPage(), problems);
  try {
    const missing = await page.goto(`${BASE}/dashbord.html`);
    assert.equal(missing.status(), 404);
    await idle(page);
    const links = () => page.locator('nav.main a').allTextContents();
    assert.deepEqual(await links(), ['Home', 'Sign in', 'API reference']);
    assert.equal(await page.locator('#sign-out').count(), 0);

    await devLogin(page, 'four-oh-four@example.org');
    await page.goto(`${BASE}/dashbord.html`);
    await page.locator('#sign-out').waitFor();
    assert.deepEqual(await links(), ['Home', 'Discovery', 'Profile', 'Coaching', 'Dashboard', 'Account']);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

for (const size of PHONES) {
  test(`no page is wider than a ${size.width} px screen, with a 60-character e-mail`, async () => {
    const problems = [];
    const context = await contextAt(shared.browser, size);
    const page = watch(await context.newPage(), problems);
    const wide = [];
    const measure = async (url, ready = async () => {}) => {
      await page.goto(`${BASE}${url}`);
      await idle(page);
      await ready();
      const over = await overflowOf(page);
      if (over > 0) wide.push(`${url}: ${over} px wider than the screen`);
    };
    try {
      await measure('/login');
      await measure('/docs');
      await measure('/no-such-page');
      await devLogin(page, longEmail(size.width));
      const api = apiAs(context);
      await measure('/', () => page.locator('#greeting', { hasText: '@example.org' }).waitFor());
      await measure('/discovery.html');
      await profileThroughApi(api);
      assert.equal((await api.post('/discovery/profile/me/affirm')).status, 200);
      assert.equal((await api.post('/coaching/checkins')).status, 201);
      const now = Date.now();
      // Enough time in one foundation for the longest share text ("100% · 58 h 30 min").
      const items = [0, 1, 2, 3].map((days) => ({ external_task_id: `n-${days}`, task_label: 'Writing the long course',
        foundation: 'vocation', minutes: 877, occurred_at: new Date(now - days * 86400000 - 3600000).toISOString() }));
      items.push({ external_task_id: 'n-u', task_label: 'Radio repair: Grundig', foundation: null, minutes: 50,
        occurred_at: new Date(now - 3600000).toISOString() });
      assert.equal((await api.post('/integration/task-mappings/batch', { items })).status, 200);
      await measure('/profile.html', () => page.locator('#history h2').waitFor());
      await measure('/coaching.html', () => page.locator('#checkin-list li').first().waitFor());
      await measure('/dashboard.html', () => page.locator('svg.chart g.row').nth(5).waitFor());
      assert.deepEqual(await cutLabels(page), []);
      assert.equal(await page.locator('svg.chart g.row[data-foundation="vocation"] text.share').textContent(), '100% · 58 h 28 min');
      await measure('/account.html', () => page.locator('#me-email').waitFor());
      await measure('/no-such-page', () => page.locator('#sign-out').waitFor({ state: 'attached' }));
      assert.deepEqual(wide, []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
