// Phone and polish, in Chromium at 1280 and 390 px: the navigation is one row (on a phone, the
// brand and a "Menu" button that discloses the links, by keyboard and by touch); the sign-in
// page offers the organisation's sign-in only when an identity provider is configured (this
// suite's service has none); a phone page never scrolls sideways; a mistyped address gets the
// site's 404 page; sessions name their device ("Firefox on Linux"); a new API key has a copy
// button; scope names never break; a check-in quotes each goal once; the dashboard says logged,
// classified and not yet classified in one sentence; the activity log reads in words.
// Run through ./run.sh, which starts the service and sets BASE_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { BASE, SHOTS, WIDTHS, sharedBrowser, contextAt, watch, idle, personAt, profileThroughApi, settle } from './helpers.mjs';

const shared = sharedBrowser();

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

/** The header's height and whether the brand, the menu button and the links are shown. */
function header(page) {
  return page.evaluate(() => {
    const shown = (n) => Boolean(n && n.checkVisibility({ visibilityProperty: true }));
    return {
      height: document.querySelector('header.site').getBoundingClientRect().height,
      button: shown(document.getElementById('menu-toggle')),
      links: [...document.querySelectorAll('#main-menu a')].filter(shown).length,
      // Items on the header's first row share its top (within a few px): one row.
      brandTop: document.querySelector('header.site .brand').getBoundingClientRect().top,
      lastTop: [...document.querySelectorAll('header.site .bar > *, #menu-toggle, #main-menu li')].filter(shown)
        .map((n) => n.getBoundingClientRect().top),
    };
  });
}

for (const size of WIDTHS) {
  test(`the navigation takes one row; on a phone a menu button discloses it (${size.width} px)`, async () => {
    const problems = [];
    const { context, page } = await personAt(shared.browser, size, `menu-${size.width}@example.org`, problems);
    try {
      await page.goto(`${BASE}/coaching.html`);
      await idle(page);
      const closed = await header(page);
      assert.ok(closed.height <= 60, `the header is ${closed.height} px tall`);
      for (const top of closed.lastTop) assert.ok(Math.abs(top - closed.lastTop[0]) <= 12, `not one row: ${closed.lastTop}`);
      if (size.width >= 600) {
        // A desktop shows the six links and Sign out in the row; no menu button.
        assert.equal(closed.button, false);
        assert.equal(closed.links, 6);
        assert.deepEqual(problems, []);
        return;
      }
      const button = page.locator('#menu-toggle');
      assert.equal(closed.button, true);
      assert.equal(closed.links, 0);
      assert.equal(await button.evaluate((n) => n.tagName), 'BUTTON');
      assert.equal(await button.getAttribute('aria-expanded'), 'false');
      assert.equal(await button.getAttribute('aria-controls'), 'main-menu');
      assert.equal(await page.locator('#main-menu').evaluate((n) => n.tagName), 'UL');

      // The keyboard alone: Tab to the button (after the skip link and the brand), Enter opens.
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement.id), 'menu-toggle');
      await page.keyboard.press('Enter');
      assert.equal(await button.getAttribute('aria-expanded'), 'true');
      const open = await header(page);
      assert.equal(open.links, 6);
      assert.equal(open.height, closed.height, 'the open menu lies over the page; the header keeps its row');
      assert.equal(await page.locator('#sign-out').isVisible(), true);
      // The current page is marked in the open list too.
      assert.deepEqual(await page.locator('#main-menu a[aria-current="page"]').allTextContents(), ['Coaching']);
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Home');
      // Escape closes it and puts the focus back on the button; Space opens it again.
      await page.keyboard.press('Escape');
      assert.equal(await button.getAttribute('aria-expanded'), 'false');
      assert.equal(await page.evaluate(() => document.activeElement.id), 'menu-toggle');
      assert.equal((await header(page)).links, 0);
      await page.keyboard.press('Space');
      assert.equal(await button.getAttribute('aria-expanded'), 'true');
      // Leaving the navigation with the keyboard closes it.
      await page.locator('#sign-out').focus();
      await page.keyboard.press('Tab');
      assert.equal(await button.getAttribute('aria-expanded'), 'false');

      // A tap opens it, a link leads on, and the next page starts closed.
      await button.click();
      await Promise.all([page.waitForURL(`${BASE}/dashboard.html`), page.click('#main-menu a[href="/dashboard.html"]')]);
      await idle(page);
      assert.equal(await page.locator('#menu-toggle').getAttribute('aria-expanded'), 'false');
      assert.equal((await header(page)).links, 0);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth), false);
      await page.click('#menu-toggle');
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'menu-open-phone.png') });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test(`sign-in offers only the ways this service has (${size.width} px)`, async () => {
    const problems = [];
    const context = await contextAt(shared.browser, size);
    const page = watch(await context.newPage(), problems);
    try {
      await page.goto(`${BASE}/login`);
      await page.locator('#dev').waitFor({ state: 'visible' });
      await page.locator('#org').waitFor({ state: 'hidden' });
      const config = await (await page.request.get(`${BASE}/api/auth/config`)).json();
      assert.equal(config.sign_in, false, 'the suite runs without an identity provider');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test(`the navigation, the API key and the check-in read well (${size.width} px)`, async () => {
    const problems = [];
    const email = `polish-${size.width}@example.org`;
    const { context, page, api } = await personAt(shared.browser, size, email, problems);
    try {
      // A mistyped address in the browser: the site's page, with its 404 and its navigation.
      const missing = await page.goto(`${BASE}/dashbord.html`);
      assert.equal(missing.status(), 404);
      assert.equal(await page.locator('h1').textContent(), 'This page is not here');
      assert.equal(await page.locator('nav.main a[href="/dashboard.html"]').count(), 1);
      await page.goto(`${BASE}/`);
      await idle(page);

      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth), false);

      // Devices are named in words: this browser, and a Firefox signed in elsewhere.
      const firefox = await fetch(`${BASE}/api/auth/dev-login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'User-Agent': FIREFOX },
        body: JSON.stringify({ email }),
      });
      assert.equal(firefox.status, 200);

      // A new key can be copied, and the scope names keep together.
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
      await page.goto(`${BASE}/account.html`);
      await idle(page);
      const here = (await api.get('/api/me/sessions')).body.find((s) => s.current);
      assert.match(here.device, / on Linux$/, JSON.stringify(here));
      assert.equal(await page.locator('#sessions li.session[data-current="true"] strong').textContent(), here.device);
      assert.equal(await page.locator('#sessions li.session[data-current="false"] strong').textContent(), 'Firefox on Linux');
      for (const code of await page.locator('#key-scopes code').all()) {
        assert.equal(await code.evaluate((n) => n.getClientRects().length), 1, `${await code.textContent()} breaks`);
      }
      await page.fill('#key-name', 'tracker');
      await page.click('#key-form button[type="submit"]');
      const key = (await page.locator('#new-key-value').textContent()).trim();
      await page.click('#copy-api-key');
      await page.locator('#status-copy-api-key', { hasText: 'The key is copied.' }).waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);

      // The activity log says what was done in words, with the recorded action beside them.
      await settle();
      await page.reload();
      const created = page.locator('#activity tr', { hasText: 'Created an API key' });
      await created.first().waitFor();
      assert.equal(await created.first().locator('code.activity-route').textContent(), 'api_key.create');
      const read = page.locator('#activity tr', { hasText: 'Looked at your account' });
      assert.equal(await read.first().locator('code.activity-route').textContent(), 'GET /api/me');

      // A check-in quotes each goal once.
      await profileThroughApi(api);
      assert.equal((await api.post('/discovery/profile/me/affirm')).status, 200);
      const checkin = await api.post('/coaching/checkins');
      assert.equal(checkin.status, 201, JSON.stringify(checkin.body));
      assert.ok(checkin.body.quoted_goals.length > 0, 'the check-in quotes goals');
      await page.goto(`${BASE}/coaching.html`);
      const item = page.locator(`#checkin-${checkin.body.id}`);
      await item.waitFor();
      const text = await item.textContent();
      for (const goal of checkin.body.quoted_goals) {
        assert.equal(text.split(goal).length - 1, 1, `“${goal}” is quoted ${text.split(goal).length - 1} times`);
      }

      // One total, explained: logged = classified + not yet, in one sentence.
      const now = Date.now();
      const sent = await api.post('/integration/task-mappings/batch', { items: [
        { external_task_id: 'p-1', task_label: 'Writing', foundation: 'vocation', minutes: 90, occurred_at: new Date(now - 3600000).toISOString() },
        { external_task_id: 'p-2', task_label: 'Inbox', foundation: null, minutes: 30, occurred_at: new Date(now - 7200000).toISOString() },
      ] });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      await page.goto(`${BASE}/dashboard.html`);
      await page.locator('#coverage').waitFor();
      assert.equal(await page.locator('#total').textContent(),
        '2 h logged in the last 14 days: 1 h 30 min classified (75%), 30 min not yet.');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
