import { connect } from '../sql/db'
import { listParked, requeueParked } from '../src/domain/events/parked'

/*
 * The outbox's parked events (docs/operations.md), for an operator:
 *   npm run events -- parked            list the PARKED events: id, type, aggregate, supplier
 *                                       (order key), when, why, and how many later events of
 *                                       that supplier wait behind it
 *   npm run events -- requeue <id>      put a PARKED event back in line (PENDING) once its cause
 *                                       is fixed; refused while today's catalog still refuses it
 * Needs DATABASE_URL (the service's database). Exit status: 0 done, 1 refused, 2 cannot run.
 */
const [command, eventId] = process.argv.slice(2)
const url = process.env.DATABASE_URL
if (!url || !(command === 'parked' || (command === 'requeue' && eventId))) {
  console.error('usage: DATABASE_URL=… npm run events -- parked | requeue <eventId>')
  process.exit(2)
}
const sql = connect({ url, max: 1, timezone: 'UTC' })
let status = 0
try {
  if (command === 'parked') {
    const parked = await listParked(sql)
    if (parked.length === 0) console.log('no parked events')
    for (const p of parked) {
      console.log(
        `${p.eventId}  ${p.eventType}  ${p.aggregateType} ${p.aggregateId}  supplier ${p.orderKey}` +
          `  parked ${p.parkedAt}  holding ${p.held} later event(s)\n    ${p.reason ?? ''}`,
      )
    }
  } else {
    const outcome = await requeueParked(sql, eventId)
    if (outcome.requeued) console.log(`event ${eventId} re-queued: PENDING`)
    else {
      console.error(`not re-queued (${outcome.why}): ${outcome.detail}`)
      status = 1
    }
  }
} catch (err) {
  console.error(`events: ${(err as Error).message}`)
  status = 2
} finally {
  await sql.end({ timeout: 5 })
}
process.exit(status)
