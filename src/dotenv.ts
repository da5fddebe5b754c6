import { readFileSync } from 'node:fs'
import { parseEnv } from 'node:util'

/**
 * `.env` in the working directory, if there is one, under the real environment: a variable set
 * in the environment wins over the file, as with Node's own `--env-file`.
 */
export function withDotEnv(environment: NodeJS.ProcessEnv): Record<string, string | undefined> {
  let text: string
  try {
    text = readFileSync('.env', 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return environment
    throw err
  }
  return { ...parseEnv(text), ...environment }
}

/**
 * The development entries (`npm start`, `npm run token`, `npm run demo`) run with
 * NODE_ENV=development unless the environment or `.env` names another: the one place where the
 * public development secrets are meant to be taken without being asked for.
 */
export function developmentByDefault(environment: NodeJS.ProcessEnv): void {
  if (!withDotEnv(environment).NODE_ENV) environment.NODE_ENV = 'development'
}
