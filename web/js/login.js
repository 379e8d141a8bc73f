// The sign-in page: the identity provider's "Sign in", dev login when the service offers it,
// and what a failed sign-in (`?error=<code>`) means, in words.
import { request } from './api.js';
import { explain, notice } from './ui.js';

const ERRORS = {
  sign_in_unavailable: 'Signing in is not set up on this service yet (no identity provider is configured). Please tell whoever runs it.',
  provider_unavailable: 'Your organisation’s sign-in service could not be reached. Please try again in a moment.',
  provider_misconfigured: 'The sign-in service refused this application. Whoever runs it needs to check its settings.',
  login_expired: 'The sign-in took too long or was started in another browser. Please start again.',
  invalid_state: 'That sign-in answer did not belong to this browser’s sign-in. Please start again.',
  access_denied: 'The sign-in was declined, so you are not signed in.',
  code_rejected: 'The sign-in could not be completed (it may have been used already). Please start again.',
  invalid_token: 'The sign-in service’s answer could not be verified. Please start again.',
  email_not_verified: 'Your e-mail address is not verified with your sign-in service, so we cannot sign you in.',
  email_domain_not_allowed: 'Your e-mail address is not one this service accepts.',
  invalid_email: 'Your sign-in service gave an e-mail address this service cannot use (it must be a plain address such as name@example.org).',
  invalid_request: 'The sign-in answer was incomplete. Please start again.',
  server_error: 'Something failed on our side while signing you in. Please try again.',
};

const params = new URLSearchParams(location.search);
const redirect = localPath(params.get('redirect')) || '/';

/**
 * The redirect target as a path on this service, or null. Resolved with the URL parser, as the
 * browser will resolve it: `/%09/evil.example` (a tab the parser strips) or `/\\evil.example`
 * lands on another origin, so only a result on our own origin is kept, and only its path.
 */
function localPath(value) {
  if (!value || !value.startsWith('/')) return null;
  let target;
  try {
    target = new URL(value, location.origin);
  } catch {
    return null;
  }
  if (target.origin !== location.origin) return null;
  const path = target.pathname + target.search + target.hash;
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/login')) return null;
  return path;
}

const code = params.get('error');
if (code) {
  notice(ERRORS[code] || `Signing in did not work (${code}). Please try again.`, 'error');
} else if (params.has('deleted')) {
  notice('Your account and everything in it are deleted.');
} else if (params.has('signed_out')) {
  notice('You are signed out.');
}

document.getElementById('sign-in').href =
  '/api/auth/login?redirect=' + encodeURIComponent(redirect);

// Dev login exists only in dev mode; the service says which ways to sign in it offers.
fetch('/api/auth/config', { credentials: 'same-origin', headers: { Accept: 'application/json' } })
  .then((response) => (response.ok ? response.json() : null))
  .then((config) => {
    if (config && config.dev_login) document.getElementById('dev').hidden = false;
    // No identity provider: its button would only lead to "sign-in is not set up".
    if (config && config.sign_in === false) document.getElementById('org').hidden = true;
  })
  .catch(() => {});

document.getElementById('dev-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const button = event.submitter;
  if (button) button.disabled = true;
  try {
    const email = document.getElementById('dev-email').value.trim();
    await request('POST', '/api/auth/dev-login', { body: { email }, signIn: false });
    location.assign(redirect);
  } catch (error) {
    notice(explain(error), 'error');
    if (button) button.disabled = false;
  }
});
