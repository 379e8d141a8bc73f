// The person's time zone and the weekly trend, in Chromium at 1280 and 390 px: the first sign-in
// takes the browser's zone (here Asia/Tokyo) and the account page changes it, and every moment
// shown is then in the account's zone, not the browser's; the dashboard draws
// stacked weekly bars of the person's local weeks (12 by default, 104 chosen), with a sentence
// per foundation on last week against its 4-week average, a text alternative and the numbers as a
// table; no chart text is under 12 px or cut at the chart's edge, twelve weeks fit a phone, and a
// phone never scrolls the page sideways (104 weeks scroll inside a focusable, labelled region).
// Run through ./run.sh, which starts the service and sets BASE_URL and SCREENSHOTS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { BASE, SHOTS, WIDTHS, sharedBrowser, watch, devLogin, idle, apiAs, shot } from './helpers.mjs';

const shared = sharedBrowser();

/** A person signed in at `size` in a browser whose clock is in `timezoneId`. */
async function personIn(size, email, timezoneId, problems) {
  const context = await shared.browser.newContext(size.width < 600
    ? { viewport: size, isMobile: true, hasTouch: true, timezoneId }
    : { viewport: size, timezoneId });
  const page = watch(await context.newPage(), problems);
  await devLogin(page, email);
  await idle(page);
  return { context, page, api: apiAs(context) };
}

/**
 * Entries in each of the seven full weeks before this one, on their Wednesday at noon in Tokyo
 * (the weeks as the service counts them): more mission last week, vocation steady, love only
 * five to seven weeks ago.
 */
async function seed(api) {
  const { body } = await api.get('/integration/work-patterns/weekly?weeks=8');
  const items = [];
  body.weeks.slice(0, 7).forEach((week, i) => {
    const ago = 7 - i; // weeks before the current one
    const at = (hour) => new Date(Date.parse(`${week.week_start}T${hour}:00:00+09:00`) + 2 * 86400000).toISOString();
    items.push({ external_task_id: `v-${ago}`, task_label: 'Writing', foundation: 'vocation', minutes: 300, occurred_at: at(10) });
    items.push({ external_task_id: `m-${ago}`, task_label: 'Volunteering', foundation: 'mission', minutes: ago === 1 ? 240 : 60, occurred_at: at(12) });
    if (ago >= 5) items.push({ external_task_id: `l-${ago}`, task_label: 'Family', foundation: 'love', minutes: 90, occurred_at: at(14) });
  });
  const sent = await api.post('/integration/task-mappings/batch', { items });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
}

/** Every SVG text of both charts (the bars per foundation, the weekly one): its rendered size in px. */
async function chartFontSizes(page) {
  return page.$$eval('svg.weekly-chart text, svg.chart text', (nodes) => nodes.map((n) => parseFloat(getComputedStyle(n).fontSize)
    * (n.ownerSVGElement.getBoundingClientRect().width / n.ownerSVGElement.viewBox.baseVal.width)));
}

/** The chart texts that stick out of the weekly chart's box (and so are cut), in words. */
async function cutLabels(page) {
  return page.$$eval('svg.weekly-chart text', (nodes) => nodes.map((n) => {
    const box = n.getBBox();
    const width = n.ownerSVGElement.viewBox.baseVal.width;
    return box.x < -0.5 || box.x + box.width > width + 0.5 ? `“${n.textContent}” from ${box.x} to ${box.x + box.width} of ${width}` : null;
  }).filter(Boolean));
}

for (const size of WIDTHS) {
  test(`the first sign-in takes the browser's time zone and the account page changes it (${size.width} px)`, async () => {
    const problems = [];
    const email = `tz-${size.width}@example.org`;
    const { context, page, api } = await personIn(size, email, 'Asia/Tokyo', problems);
    try {
      await page.goto(`${BASE}/account.html`);
      await idle(page);
      assert.deepEqual((await api.get('/api/me/settings')).body, { time_zone: 'Asia/Tokyo' });
      assert.equal(await page.locator('#time-zone').inputValue(), 'Asia/Tokyo');

      await page.selectOption('#time-zone', 'Europe/Berlin');
      await page.click('#save-time-zone');
      await page.locator('#status-time-zone .status-line').filter({ hasText: 'Europe/Berlin' }).waitFor();
      assert.deepEqual((await api.get('/api/me/settings')).body, { time_zone: 'Europe/Berlin' });

      // Chosen on the account page: another page of the same browser leaves it alone.
      await page.goto(`${BASE}/dashboard.html`);
      await idle(page);
      assert.deepEqual((await api.get('/api/me/settings')).body, { time_zone: 'Europe/Berlin' });
      assert.match(await page.locator('#daily-table caption').textContent(), /Europe\/Berlin time/);

      // Moments are shown in the account's zone too, not the browser's (Tokyo here).
      await page.goto(`${BASE}/account.html`);
      await page.locator('#me-email').waitFor();
      const created = (await api.get('/api/me')).body.created_at;
      const [berlin, tokyo] = await page.evaluate((ts) => ['Europe/Berlin', 'Asia/Tokyo'].map((timeZone) =>
        new Date(ts).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone })), created);
      const since = await page.locator('#me').textContent();
      assert.ok(since.includes(`Member since ${berlin}`), `"${since}" shows ${berlin}`);
      assert.ok(!since.includes(tokyo), `"${since}" is not in the browser's zone (${tokyo})`);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test(`the dashboard draws the weekly trend, readable and without sideways page scroll (${size.width} px)`, async () => {
    const problems = [];
    const { context, page, api } = await personIn(size, `weekly-${size.width}@example.org`, 'Asia/Tokyo', problems);
    try {
      await seed(api);
      await page.goto(`${BASE}/dashboard.html`);
      await page.locator('svg.weekly-chart').waitFor();
      await idle(page);

      const weeks = page.locator('svg.weekly-chart g.week');
      assert.equal(await weeks.count(), 12);
      const served = (await api.get('/integration/work-patterns/weekly?weeks=12')).body;
      assert.equal(served.time_zone, 'Asia/Tokyo');
      for (const [i, week] of served.weeks.entries()) {
        assert.equal(await weeks.nth(i).getAttribute('data-week'), week.week_start);
        assert.equal(Number(await weeks.nth(i).getAttribute('data-minutes')), week.total_minutes);
      }
      // Stacked: last week has a segment for each foundation it holds.
      assert.equal(await weeks.nth(10).locator('rect.seg').count(), 2);

      // A text alternative: the chart is an image named by its title and description.
      const chart = page.locator('svg.weekly-chart');
      assert.equal(await chart.getAttribute('role'), 'img');
      assert.match(await page.locator('#weekly-chart-title').textContent(), /last 12 weeks/);
      assert.match(await page.locator('#weekly-chart-desc').textContent(), /busiest week/);
      // Twelve weeks fit a phone's width: nothing to scroll.
      assert.equal(await page.locator('#weekly').evaluate((n) => n.scrollWidth <= n.clientWidth), true,
        'the 12-week chart scrolls');
      if (SHOTS) {
        // The trend alone, for the README: the chart, its legend and the observations.
        await page.locator('section[aria-labelledby="weekly-title"]').screenshot({
          path: path.join(SHOTS, `dashboard-trend-${size.width < 600 ? 'phone' : 'desktop'}.png`) });
      }
      await page.click('details.weekly-numbers summary');
      assert.equal(await page.locator('#weekly-table tbody tr').count(), 12);

      // Each foundation, last week against its own 4-week average, in words.
      const notes = page.locator('#weekly-notes li');
      assert.equal(await notes.count(), 6);
      assert.equal(await page.locator('#weekly-notes li[data-foundation="mission"]').textContent(),
        'Mission: 4 h last week, 300% more than its 4-week average of 1 h.');
      assert.equal(await page.locator('#weekly-notes li[data-foundation="vocation"]').textContent(),
        'Vocation: 5 h last week, about its 4-week average of 5 h.');
      assert.equal(await page.locator('#weekly-notes li[data-foundation="love"]').textContent(),
        'Love: no time last week, against a 4-week average of 23 min.');
      for (const text of await notes.allTextContents()) assert.doesNotMatch(text, /\b(should|must|failed|need to)\b/i);

      // The help list: six terms with their meanings, not "[object HTMLElement]".
      await page.click('details.foundations-help summary');
      assert.equal(await page.locator('#foundation-help > dt').count(), 6);
      assert.equal(await page.locator('#foundation-help > dd').count(), 6);
      assert.doesNotMatch(await page.locator('#foundation-help').textContent(), /object/);

      for (const px of await chartFontSizes(page)) assert.ok(px >= 12, `a chart label is ${px} px`);
      assert.deepEqual(await cutLabels(page), []);
      const sideways = () => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
      assert.equal(await sideways(), false, 'the page scrolls sideways');
      await shot(page, 'dashboard-weekly');

      // 104 weeks: the chart may be wider than the screen, and then scrolls inside its region.
      await page.selectOption('#weekly-weeks', '104');
      await page.locator('svg.weekly-chart g.week').nth(103).waitFor({ state: 'attached' });
      assert.match(page.url(), /weeks=104/);
      assert.equal(await page.locator('svg.weekly-chart g.week').count(), 104);
      for (const px of await chartFontSizes(page)) assert.ok(px >= 12, `a chart label is ${px} px`);
      assert.deepEqual(await cutLabels(page), []);
      assert.equal(await sideways(), false, 'the page scrolls sideways at 104 weeks');
      const region = page.locator('#weekly');
      assert.equal(await region.getAttribute('tabindex'), '0');
      assert.equal(await region.getAttribute('role'), 'region');
      assert.ok(await region.getAttribute('aria-label'));
      if (size.width < 600) {
        assert.ok(await region.evaluate((n) => n.scrollWidth > n.clientWidth), 'the wide chart scrolls in its region');
        await region.focus();
        await page.keyboard.press('ArrowRight');
        // Scrolling may be smooth: wait for it to move rather than read it at once.
        await page.waitForFunction(() => document.getElementById('weekly').scrollLeft > 0, null, { timeout: 5000 });
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
