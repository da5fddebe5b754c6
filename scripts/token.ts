import { sign } from 'hono/jwt'
import { loadConfig } from '../src/config'
import { developmentByDefault, withDotEnv } from '../src/dotenv'

/**
 * Prints a development token for the demo administrator (or `--admin <id>`), valid for 12 hours,
 * and the two headers to send with it.
 */
// The secret `npm start` verifies with: NODE_ENV=development and `.env`, as it reads them.
developmentByDefault(process.env)
const config = loadConfig(withDotEnv(process.env))
if (!config.auth.jwtSecret) {
  console.error('AUTH_JWKS_URL is set: tokens come from your identity provider, not from here')
  process.exit(1)
}
const flag = process.argv.indexOf('--admin')
const adminId = flag > 0 ? process.argv[flag + 1] : config.demoAdminId
// A token without a valid subject would be accepted for any X-Admin-Id: never mint one.
if (!adminId || !/^[1-9][0-9]{0,18}$/.test(adminId)) {
  console.error('--admin needs a positive integer administrator id')
  process.exit(2)
}
const now = Math.floor(Date.now() / 1000)
// Never longer than the service accepts (AUTH_TOKEN_MAX_LIFETIME_SECONDS, 12 hours by default).
const lifetime = Math.min(12 * 3600, config.auth.maxTokenLifetimeSeconds)
const token = await sign(
  {
    sub: adminId,
    iat: now,
    exp: now + lifetime,
    iss: config.auth.issuer,
    aud: config.auth.audience,
  },
  config.auth.jwtSecret,
  'HS256',
)
if (process.stdout.isTTY) {
  console.log(`# administrator ${adminId}; send both headers:`)
  console.log(`Authorization: Bearer ${token}`)
  console.log(`X-Admin-Id: ${adminId}`)
} else {
  console.log(token)
}
