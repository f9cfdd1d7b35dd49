/**
 * The external providers (Google, Microsoft) configured on this deployment, offered by `GET /auth/providers`.
 * The external-auth area runs them and depends on this one, so it provides this port (in a global module).
 */
export abstract class SignInProviders {
  abstract configured(): readonly string[];
}
