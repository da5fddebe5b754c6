/**
 * Reviewed patches to installed dependencies, applied by `npm ci` / `npm install` (the root
 * package's `postinstall`). Idempotent; fails the install loudly when a patched file no longer
 * looks the way the patch was reviewed against, so an upgrade cannot silently drop a fix.
 *
 * postgres.js 3.4.9 (latest release): `nextWrite` runs from a `setImmediate` that can fire after
 * the server closed the connection and `closed()` set `socket = null`; `socket.write` then throws
 * a TypeError outside any promise and the whole process exits. Seen on every one of 7
 * `pg_terminate_backend` rounds under a write burst. Upstream reports: porsager/postgres#1066,
 * #1154, #1208; proposed fixes #1168, #1209. The guard below is #1209's: when the socket is gone,
 * drop the dead connection's buffered bytes and settle its queries with CONNECTION_CLOSED (a
 * catchable rejection), instead of throwing. Two neighbours of the same outage, found by the test
 * that kills the service's connections under writes (test/db-outage.test.ts): the array-type
 * fetch on a new connection rejected unhandled when its backend was killed (upstream #1192: also
 * exits the process), and `closed()` cleared the pending write timer without forgetting it, so a
 * reconnected socket never flushed its first message and requests hung. Remove each patch once a
 * release contains the fix.
 */
/* global console, process, URL */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const PATCHES = [
  {
    name: 'nextWrite null-socket guard (upstream #1066, #1154, #1208; fix proposed in #1209)',
    original: `  function nextWrite(fn) {
    const x = socket.write(chunk, fn)`,
    patched: `  function nextWrite(fn) {
    // supplier-admin patch (scripts/patch-dependencies.mjs; upstream porsager/postgres#1209)
    if (!socket) {
      nextWriteTimer !== null && clearImmediate(nextWriteTimer)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      fn && fn(new Error('connection closed'))
      return false
    }
    const x = socket.write(chunk, fn)`,
  },
  {
    name: 'settle a failed array-type fetch (upstream #279, #1192, #1205, #1223)',
    original: `        initial.reserve && (initial = null)
        return fetchArrayTypes()`,
    patched: `        initial.reserve && (initial = null)
        // supplier-admin patch (scripts/patch-dependencies.mjs; upstream porsager/postgres#1192)
        return fetchArrayTypes().catch(errored)`,
  },
  {
    name: 'forget the cleared write timer when a connection closes',
    original: `    incomings = null
    clearImmediate(nextWriteTimer)
    socket.removeListener('data', data)`,
    patched: `    incomings = null
    clearImmediate(nextWriteTimer)
    // supplier-admin patch (scripts/patch-dependencies.mjs): a cleared but non-null timer made
    // the reconnected socket's first write (its StartupMessage) wait for a flush that never came.
    chunk = nextWriteTimer = null
    socket.removeListener('data', data)`,
  },
]

// postgres exposes no package.json through its exports map: find it where npm installs it.
const root = fileURLToPath(new URL('../node_modules/postgres', import.meta.url))
if (!existsSync(join(root, 'package.json'))) {
  console.error(`patch-dependencies: postgres is not installed at ${root}`)
  process.exit(1)
}
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

const applied = new Set()
// The ESM, CommonJS and Cloudflare builds each carry their own copy.
for (const file of ['src/connection.js', 'cjs/src/connection.js', 'cf/src/connection.js']) {
  const path = join(root, file)
  let text = readFileSync(path, 'utf8')
  for (const { name, original, patched } of PATCHES) {
    if (text.includes(patched)) continue
    if (!text.includes(original)) {
      console.error(
        `patch-dependencies: postgres ${version} ${file} differs from the reviewed 3.4.9 code ` +
          `(${name}); check whether the release fixes it, then update or remove the patch`,
      )
      process.exit(1)
    }
    text = text.replace(original, patched)
    applied.add(name)
  }
  writeFileSync(path, text)
}
for (const name of applied) console.log(`patch-dependencies: postgres ${version}: ${name}`)
