import type { Deps } from '../domain/deps'
import type { DocsAssets } from './docs-page'

/** The entry point's dependencies as the app is built with them. */
export interface AppDeps extends Deps {
  /** The reference page's renderer files; without them (edge) /docs is a static index. */
  docsAssets?: DocsAssets
}

export interface AppEnv {
  Variables: {
    requestId: string
    resultCode?: number
    adminId: string
  }
}
