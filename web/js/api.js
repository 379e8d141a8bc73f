// Every request the pages make goes through here: same-origin cookies, JSON both ways, and on a
// 401 one silent `POST /api/auth/refresh` and a retry; if that fails too, the sign-in page.
// Browsers add the Origin header to unsafe requests themselves (the service checks it for CSRF).

/** An error answer of the API: `{"error": {"code", "message", "details"}}`. */
export class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || `The service answered ${status}.`);
    this.status = status;
    this.code = error.code || 'http_' + status;
    this.details = error.details || [];
  }
}

let refreshing = null;

/** One refresh at a time, shared by every request that got a 401 meanwhile. */
function refreshSession() {
  if (!refreshing) {
    refreshing = fetch('/api/auth/refresh', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { Accept: 'application/json' },
    })
      .then((r) => r.ok)
      .catch(() => false)
      .finally(() => {
        setTimeout(() => { refreshing = null; }, 0);
      });
  }
  return refreshing;
}

/** Sends the person to the sign-in page, coming back here afterwards. */
export function toSignIn() {
  const back = location.pathname + location.search;
  location.assign('/login?redirect=' + encodeURIComponent(back));
}

/**
 * `method path`, with an optional JSON `body` and extra `headers`. Resolves to the parsed JSON
 * (or null for 204); rejects with an ApiError. `options.signIn === false` keeps a 401 as an
 * error instead of leaving for the sign-in page.
 */
export async function request(method, path, options = {}) {
  const init = {
    method,
    credentials: 'same-origin',
    headers: { Accept: 'application/json', ...(options.headers || {}) },
  };
  if (options.body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  let response = await fetch(path, init);
  if (response.status === 401 && (await refreshSession())) {
    response = await fetch(path, init);
  }
  if (response.status === 401 && options.signIn !== false) {
    toSignIn();
    // Never settles: the page is going away.
    return new Promise(() => {});
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let body = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

export const api = {
  get: (path, options) => request('GET', path, options),
  post: (path, body, options = {}) => request('POST', path, { ...options, body }),
  put: (path, body, options = {}) => request('PUT', path, { ...options, body }),
  patch: (path, body, options = {}) => request('PATCH', path, { ...options, body }),
  delete: (path, options) => request('DELETE', path, options),
};

/** Signs out (revokes this session) and goes to the sign-in page. */
export async function signOut() {
  try {
    await request('POST', '/api/auth/logout', { signIn: false });
  } catch {
    // Signed out already, or the service is away: the cookies are gone either way.
  }
  location.assign('/login?signed_out=1');
}
