// Shared by the browser test files: the service's address, launching Debian's Chromium, watching
// a page for console errors, dev login, screenshots, setting up a person's data through the API
// with the browser context's own cookies (so the pages then show it), and checking that a message
// shows beside the control that caused it.
import path from 'node:path';
import assert from 'node:assert/strict';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

export const BASE = process.env.BASE_URL || 'http://127.0.0.1:8011';
/** A second service that has e-mail (SMTP_URL set) and no delivery worker; null when not started. */
export const MAIL_BASE = process.env.MAIL_BASE_URL || null;
/** A third service whose language model always fails (nothing listens at its address); it shares MAIL_BASE's database. */
export const BROKEN_BASE = process.env.BROKEN_BASE_URL || null;
export const SHOTS = process.env.SCREENSHOTS || null;
export const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Seven answers the offline engine turns into a full profile (both goals stated). */
export const ANSWERS = [
  'I love long walks in the hills and cooking for friends on Sundays.',
  'I am good at explaining hard things simply and staying calm when things go wrong.',
  'I want to help small teams build software that lasts.',
  'I could be paid for teaching and mentoring engineers.',
  'I am driven by wanting things to be right; under pressure I get critical of myself.',
  'Publish the course I have been drafting.',
  'Run a small school for software craft.',
];

export function launch() {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: FLAGS });
}

/**
 * Collects into `problems` every console error (other than Chromium's "Failed to load resource"
 * for a 4xx the pages expect), every uncaught exception and every dialog of page `p`.
 */
export function watch(p, problems) {
  p.setDefaultTimeout(15000);
  p.on('console', (message) => {
    // A fetch that answers 4xx is logged by Chromium as "Failed to load resource": the pages
    // expect some (the 401 before a silent refresh, the 404 of "no conversation yet", the dev
    // login probe, a 409 they explain). Everything else logged as an error is a fault.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      problems.push(`${p.url()}: console error: ${message.text()}`);
    }
  });
  p.on('pageerror', (error) => problems.push(`${p.url()}: uncaught: ${error.message}`));
  p.on('dialog', async (dialog) => {
    problems.push(`${p.url()}: unexpected dialog: ${dialog.message()}`);
    await dialog.dismiss();
  });
  return p;
}

export async function shot(p, name) {
  if (!SHOTS) return;
  const width = p.viewportSize().width;
  await p.screenshot({ path: path.join(SHOTS, `${name}-${width < 600 ? 'phone' : 'desktop'}.png`), fullPage: true });
}

/** Signs in on the sign-in page's dev login form (of the service at `base`) and waits for the home page. */
export async function devLogin(p, email, base = BASE) {
  await p.goto(`${base}/login`);
  await p.locator('#dev').waitFor({ state: 'visible' });
  await p.fill('#dev-email', email);
  await Promise.all([p.waitForURL(`${base}/`), p.click('#dev-form button[type="submit"]')]);
}

export async function idle(p) {
  await p.waitForLoadState('networkidle');
}

/**
 * The API as the person signed in to `context`: its cookies, and the Origin of the service (the
 * CSRF check wants it on unsafe requests). Each call resolves to `{status, body}`. Cookies do not
 * tell ports apart: a context talks to one service only.
 */
export function apiAs(context, base = BASE) {
  const call = async (method, url, data) => {
    const response = await context.request.fetch(`${base}${url}`, {
      method,
      headers: { Origin: base, Accept: 'application/json' },
      ...(data === undefined ? {} : { data }),
    });
    const text = await response.text();
    let body = null;
    try { body = text ? JSON.parse(text) : null; } catch { body = text; }
    return { status: response.status(), body };
  };
  return {
    get: (url) => call('GET', url),
    post: (url, data) => call('POST', url, data),
    put: (url, data) => call('PUT', url, data),
    patch: (url, data) => call('PATCH', url, data),
    delete: (url) => call('DELETE', url),
  };
}

/** Answers the prompts from `from` (1-7) on through the API; returns the conversation. */
export async function answerThroughApi(api, from = 1, answers = ANSWERS) {
  const started = await api.post('/discovery/conversation');
  if (![200, 201].includes(started.status)) throw new Error(`start: ${started.status}`);
  let conversation = started.body;
  for (let step = from; step <= 7; step += 1) {
    const answered = await api.put(`/discovery/conversation/me/answers/${step}`, { text: answers[step - 1] });
    if (answered.status !== 200) throw new Error(`answer ${step}: ${answered.status} ${JSON.stringify(answered.body)}`);
    conversation = answered.body;
  }
  return conversation;
}

/** The whole discovery through the API: answers all seven, completes; returns the profile. */
export async function profileThroughApi(api, answers = ANSWERS) {
  await answerThroughApi(api, 1, answers);
  const completed = await api.post('/discovery/conversation/me/complete');
  if (completed.status !== 201) throw new Error(`complete: ${completed.status} ${JSON.stringify(completed.body)}`);
  return completed.body;
}

/** Activity is written a moment after each response (batched); this waits that moment out. */
export function settle(ms = 400) {
  return new Promise((resolve) => { setTimeout(resolve, ms); });
}

/** The two widths every feedback check runs at: desktop and phone. */
export const WIDTHS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];

/** A browser context at `size` (a phone one is mobile with touch). */
export function contextAt(browser, size) {
  return browser.newContext(size.width < 600
    ? { viewport: size, isMobile: true, hasTouch: true }
    : { viewport: size });
}

/** One browser for the tests of a file: launched before them, closed after; `.browser` once up. */
export function sharedBrowser() {
  const shared = { browser: null };
  before(async () => { shared.browser = await launch(); });
  after(async () => { if (shared.browser) await shared.browser.close(); });
  return shared;
}

/** A person signed in (dev login as `email`) at `size` to the service at `base`: `{context, page, api}`. */
export async function personAt(browser, size, email, problems, base = BASE) {
  const context = await contextAt(browser, size);
  const page = watch(await context.newPage(), problems);
  await devLogin(page, email, base);
  return { context, page, api: apiAs(context, base) };
}

/** Where `locator` is on the page (not the viewport): `{top, bottom}`, for a control about to be re-drawn. */
export async function placeOf(locator) {
  const box = await locator.boundingBox();
  assert.ok(box, 'the control has no box (not shown)');
  const scrollY = await locator.page().evaluate(() => window.scrollY);
  return { top: box.y + scrollY, bottom: box.y + box.height + scrollY };
}

/**
 * Asserts that `message` shows now inside the viewport (no scrolling needed to read it), and that
 * it and the control (its place from `placeOf`, taken before the action) fit in one viewport height.
 */
export async function assertBeside(page, control, message, what) {
  await message.waitFor({ state: 'visible' });
  const box = await message.boundingBox();
  const { height } = page.viewportSize();
  // A pixel of slack: a box scrolled to the edge of the viewport can end a fraction beyond it.
  assert.ok(box.y >= -1 && box.y + box.height <= height + 1,
    `${what}: the message is out of view (from ${Math.round(box.y)} to ${Math.round(box.y + box.height)} px of a ${height} px viewport)`);
  const here = await placeOf(message);
  const span = Math.max(here.bottom, control.bottom) - Math.min(here.top, control.top);
  assert.ok(span <= height, `${what}: the message and its control span ${Math.round(span)} px, more than the ${height} px viewport`);
}

/** Requests of `page` whose method is `method` and whose path matches `pattern`, collected as they go. */
export function requestsTo(page, method, pattern) {
  const seen = [];
  page.on('request', (request) => {
    if (request.method() === method && pattern.test(new URL(request.url()).pathname)) seen.push(request.url());
  });
  return seen;
}

/** Holds every `method` request to `glob` of `page` for `ms` before sending it on. */
export function delay(page, glob, method, ms) {
  return page.route(glob, async (route) => {
    if (route.request().method() === method) await settle(ms);
    await route.continue();
  });
}

/** Asserts that `locator` is inside the viewport now, whole (the person sees it without scrolling). */
export async function assertInView(page, locator, what) {
  const box = await locator.boundingBox();
  assert.ok(box, `${what}: not shown`);
  const { width, height } = page.viewportSize();
  assert.ok(box.y >= -1 && box.y + box.height <= height + 1 && box.x >= -1 && box.x + box.width <= width + 1,
    `${what}: out of view (${Math.round(box.x)},${Math.round(box.y)} ${Math.round(box.width)}×${Math.round(box.height)} in ${width}×${height})`);
}

/** How far the page is wider than its viewport, in px (0 when it fits). */
export function overflowOf(page) {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}
