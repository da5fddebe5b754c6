/**
 * `npm start`: the service on a developer machine. It sets NODE_ENV=development (unless the
 * environment or `.env` says otherwise), which the public development secrets require, then
 * runs the real entry, src/main.ts. In code rather than in the npm script: `NODE_ENV=development
 * node …` is not understood by Windows' cmd, and Node's `--env-file` would win over `.env`.
 * Production runs src/main.ts (the bundle of `npm run build`), where NODE_ENV is unset unless
 * the deployment sets it.
 */
import { developmentByDefault } from './dotenv'

developmentByDefault(process.env)
// After the line above: a static import would run main.ts first.
await import('./main')
