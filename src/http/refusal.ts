/**
 * How a refusal names what it refuses, on every route and for every part of a request (body,
 * query, path): at most MAX_NAMED problems, then how many more, so that its length does not grow
 * with the input; and only names spelled like the API's own fields, so that a value a client
 * sent as a name (a tax number as a query parameter, a phone number as a body key) is not echoed.
 */

/** Problems a refusal names; the rest are counted ("and N more"). */
export const MAX_NAMED = 5

/** How every field, parameter and path parameter of the API is spelled. */
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/

/** `name` if it is spelled like a field name, else `instead`. */
export const shownName = (name: string, instead = '(unnamed)') =>
  FIELD_NAME.test(name) ? name : instead

/** A field's path (`accounts.0.bankName`), every name in it filtered; `(body)` for the root. */
export const shownPath = (path: readonly PropertyKey[]) =>
  path.map((key) => (typeof key === 'number' ? String(key) : shownName(String(key)))).join('.') ||
  '(body)'

/** The first MAX_NAMED problems joined with `; `, and how many were left unnamed. */
export function listProblems(problems: Iterable<string>): string {
  const named: string[] = []
  let more = 0
  for (const problem of problems) {
    if (named.length < MAX_NAMED) named.push(problem)
    else more++
  }
  return more ? `${named.join('; ')}; and ${more} more` : named.join('; ')
}
