import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { DocsAssets } from './docs-page'

/**
 * The renderer's files from the installed swagger-ui-dist package (a dependency, so `npm ci`
 * brings it; nothing is built or downloaded). Node only: the edge serves the static index.
 * Each file is read once and kept.
 */
export function nodeDocsAssets(): DocsAssets {
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
  const cache = new Map<string, Promise<Uint8Array>>()
  return {
    read(name) {
      let file = cache.get(name)
      if (!file) {
        file = readFile(join(dir, name))
        file.catch(() => cache.delete(name))
        cache.set(name, file)
      }
      return file
    },
  }
}
