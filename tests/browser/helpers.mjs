// Shared by the browser test files: the service's address, launching Debian's Chromium, watching
// a page for console errors, dev login, screenshots, and setting up a person's data through the
// API with the browser context's own cookies (so the pages then show it).
import path from 'node:path';
import { chromium } from 'playwright-core';

export const BASE = process.env.BASE_URL || 'http://127.0.0.1:8011';
/** A second service that has e-mail (SMTP_URL set) and no delivery worker; null when not started. */
export const MAIL_BASE = process.env.MAIL_BASE_URL || null;
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
