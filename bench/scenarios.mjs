import { signInCookie } from './lib.mjs';

// Routes of the service measured against the bare baseline. Each scenario prepares what it needs
// (an account, a cookie) through the public API and returns autocannon targets.
export const scenarios = [
  {
    name: 'health',
    prepare: async (base) => [{ name: 'service GET /health', url: `${base}/health` }],
  },
  {
    // The whole HTTP pipeline (Express, helmet, CORS, Nest routing, guards, request log) with no database work.
    name: 'version',
    prepare: async (base) => [{ name: 'service GET /version (full pipeline)', url: `${base}/version` }],
  },
  {
    // An authenticated JSON route: cookie JWT checked by passport-jwt, session and token_version looked up.
    name: 'auth-me',
    prepare: async (base, { mail }) => {
      const cookie = await signInCookie(base, mail, `bench.${Date.now()}@example.test`);
      return [{ name: 'service GET /api/v1/auth/me (cookie)', url: `${base}/api/v1/auth/me`, headers: { cookie } }];
    },
  },
];
