import { fail } from '../../errors'
import type { Config } from '../../config'

/*
 * Field helpers every write shares, whatever its aggregate: how an empty value is stored and
 * which URLs a form may point at.
 */

/** An empty string is no value: stored as null, like an absent one. */
export const emptyToNull = <T>(v: T | null | undefined): T | null =>
  v === undefined || v === null || (v as unknown) === '' ? null : v

/** Whether a URL lies under an authorized storage prefix (licence, images, proof files). */
export function isAuthorizedStorageUrl(prefixes: readonly string[], url: string) {
  // Compare the normalized URL, so `…/supplier/../private/x` cannot climb out of a prefix.
  let href: string
  try {
    const parsed = new URL(url)
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return false
    href = parsed.href
  } catch {
    return false
  }
  return prefixes.some((p) => href.startsWith(p))
}

/** Every [field, url] given must be an authorized storage URL (blank ones are absent). */
export function checkStorageUrls(
  config: Config,
  urls: [field: string, url: string | null | undefined][],
) {
  for (const [field, url] of urls) {
    if (url && !isAuthorizedStorageUrl(config.storageUrlPrefixes, url))
      fail('STORAGE_URL_UNAUTHORIZED', `${field}: not on an authorized storage prefix`)
  }
}
