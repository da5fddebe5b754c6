import type { Logger } from 'pino'
import type { Sql } from '../../sql/db'
import type { Config } from '../config'
import type { SensitiveCipher } from '../crypto/sensitive'
import type { PermissionLookup } from '../ports/permission'

/** What the domain needs from the outside world; built once by the entry point. */
export interface Deps {
  config: Config
  sql: Sql
  logger: Logger
  cipher: SensitiveCipher
  permissions: PermissionLookup
}

export interface AppEnv {
  Variables: {
    requestId: string
    resultCode?: number
    adminId: string
  }
}
