// A real OpenID provider for tests (panva/oidc-provider with its development login pages).
// Never expose it: any login with any password signs in. See README.md.
//
// Environment:
//   PORT           port on 127.0.0.1 (0 or unset: a free one)
//   CLIENT_ID      the one registered client        (default discovery-local)
//   CLIENT_SECRET  its secret                        (default discovery-local-secret)
//   REDIRECT_URI   its only redirect URI             (default http://127.0.0.1:8011/api/auth/callback)
//   CONFORM_ID_TOKEN_CLAIMS=true   keep e-mail and name out of the ID token (user info only),
//                                  as a strictly conforming provider does
//   ID_TOKEN_ALG=HS256             sign the client's ID tokens with this algorithm (HS256 uses the
//                                  client secret: a provider an attacker configured, for tests)
//   PUBLIC_CLIENT=true             register the client as public (no secret, PKCE only:
//                                  token_endpoint_auth_method none)
//   EXIT_ON_STDIN_EOF=1            exit when stdin closes, so a test's provider dies with the test
//
// Prints one line `READY <issuer-url>` on stdout once it accepts connections.

import { createServer } from 'node:http';
import { generateKeyPairSync, randomBytes } from 'node:crypto';

import Provider from 'oidc-provider';

const port = Number(process.env.PORT ?? 0);
const clientId = process.env.CLIENT_ID || 'discovery-local';
const clientSecret = process.env.CLIENT_SECRET || 'discovery-local-secret';
const redirectUri = process.env.REDIRECT_URI || 'http://127.0.0.1:8011/api/auth/callback';
const conformIdTokenClaims = process.env.CONFORM_ID_TOKEN_CLAIMS === 'true';
const idTokenAlg = process.env.ID_TOKEN_ALG || '';
const publicClient = process.env.PUBLIC_CLIENT === 'true';

// A fresh signing key per start (instead of the library's fixed development keys), so a restart
// looks like a key rotation to clients.
function signingKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    ...privateKey.export({ format: 'jwk' }),
    kid: randomBytes(8).toString('hex'),
    alg: 'RS256',
    use: 'sig',
  };
}

// The account is whatever was typed as login on the development login form:
//   ada.lovelace            -> ada.lovelace@example.org, verified, "Ada Lovelace"
//   grace@navy.mil          -> grace@navy.mil, verified, "Grace"
//   unverified-bob          -> unverified-bob@example.org, email_verified false
function claimsFor(login) {
  const email = login.includes('@') ? login : `${login}@example.org`;
  const name = email
    .split('@')[0]
    .split(/[._+-]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join(' ');
  return {
    sub: login,
    email,
    email_verified: !login.startsWith('unverified'),
    name,
  };
}

const configuration = {
  clients: [
    {
      client_id: clientId,
      // A public client authenticates with nothing but PKCE; the provider then refuses a token
      // request that carries a secret, so a client that sends one anyway is caught.
      ...(publicClient
        ? { token_endpoint_auth_method: 'none' }
        : { client_secret: clientSecret }),
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      ...(idTokenAlg ? { id_token_signed_response_alg: idTokenAlg } : {}),
    },
  ],
  ...(idTokenAlg ? { enabledJWA: { idTokenSigningAlgValues: ['RS256', idTokenAlg] } } : {}),
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  // true (the library default) would put email and name only into the user info.
  conformIdTokenClaims,
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name'],
  },
  async findAccount(_ctx, id) {
    return {
      accountId: id,
      async claims() {
        return claimsFor(id);
      },
    };
  },
  jwks: { keys: [signingKey()] },
  cookies: { keys: [randomBytes(32).toString('hex')] },
};

const server = createServer();
server.listen(port, '127.0.0.1', () => {
  // The issuer must be known before the provider is built, hence listen first (port 0).
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, configuration);
  server.on('request', provider.callback());
  process.stdout.write(`READY ${issuer}\n`);
});

if (process.env.EXIT_ON_STDIN_EOF === '1') {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => process.exit(0));
}
