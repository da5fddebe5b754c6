/**
 * Secrets that are not the public development ones (src/config.ts DEV_SECRETS), for what refuses
 * those whatever NODE_ENV says: the edge entry, a start without NODE_ENV. Test-only values.
 */
export const REAL_SECRETS = {
  AUTH_JWT_SECRET: 'test-only-jwt-secret-not-the-development-one-0123',
  DATA_ENCRYPTION_KEYS: `t1:${btoa('test-only data key, thirty-two!!')}`,
  BLIND_INDEX_KEY: btoa('test-only blind-index key, 32 by'),
  AUDIT_HMAC_KEY: btoa('test-only audit-trail key, 32 by'),
  INTERNAL_TOKEN: 'test-only-internal-token-0123',
}
