import { Writable } from 'node:stream'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { accessLog, type AccessLogVariables } from '../src/http/access-log'
import { createLogger, REDACT_PATHS } from '../src/logger'
import { appliedMigrations } from '../src/db/migrate'

const TAX_NO = '91330106MA2KXY712Q'
const PHONE = '13812345678'
const ACCOUNT_NO = '6222021234567890123'
const OPINION = '同意，资质齐全'
const BEARER = 'Bearer abc.def.ghi'
const SECRETS = [TAX_NO, PHONE, ACCOUNT_NO, OPINION, BEARER, 'abc.def.ghi', 'dup-token-xyz']

function memoryLogger(level = 'info') {
  const lines: string[] = []
  const logger = createLogger({ level, destination: { write: (line: string) => lines.push(line) } })
  const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>)
  return { logger, lines, records }
}

function expectNoSecrets(output: string) {
  for (const secret of SECRETS) expect(output).not.toContain(secret)
}

describe('createLogger redaction', () => {
  it('redacts the applicant notes of a submission (submitNote, approveNote)', () => {
    const { logger, lines, records } = memoryLogger()
    logger.info({ body: { submitNote: OPINION, approveNote: OPINION, remark: 'kept' } }, 'notes')
    expect(lines.join('')).not.toContain(OPINION)
    expect(records()[0]).toMatchObject({
      body: { submitNote: '[REDACTED]', approveNote: '[REDACTED]', remark: 'kept' },
    })
  })

  it('redacts sensitive keys at every depth, including inside body arrays', () => {
    const { logger, lines, records } = memoryLogger()
    logger.info({ taxNo: TAX_NO, contactPhone: PHONE, opinion: OPINION }, 'top')
    logger.info({ body: { taxNo: TAX_NO, contacts: [{ name: 'Li', contactPhone: PHONE }] } }, 'one')
    logger.info({
      contacts: [{ contactPhone: PHONE }],
      initialAccounts: [{ accountNo: ACCOUNT_NO, confirmAccountNo: ACCOUNT_NO }],
      accounts: [{ accountNo: ACCOUNT_NO }],
    })
    logger.info({
      req: {
        headers: { authorization: BEARER, 'x-internal-token': 'dup-token-xyz' },
        body: {
          supplier: { taxNo: TAX_NO },
          accounts: [{ accountNo: ACCOUNT_NO, bankName: 'ICBC' }],
          duplicateConfirmToken: 'dup-token-xyz',
        },
      },
    })
    logger.warn({ event: { payload: { after: { approval: { opinion: OPINION } } } } }, 'deep')
    logger.info({ authorization: BEARER, token: 'dup-token-xyz' })

    expect(lines).toHaveLength(6)
    expectNoSecrets(lines.join(''))
    const [top, one, lists, nested] = records()
    expect(top).toMatchObject({ taxNo: '[REDACTED]', contactPhone: '[REDACTED]', msg: 'top' })
    expect(one).toMatchObject({
      body: { taxNo: '[REDACTED]', contacts: [{ name: 'Li', contactPhone: '[REDACTED]' }] },
    })
    expect(lists).toMatchObject({
      initialAccounts: [{ accountNo: '[REDACTED]', confirmAccountNo: '[REDACTED]' }],
    })
    // Non-sensitive siblings survive, so logs stay useful.
    expect(nested).toMatchObject({ req: { body: { accounts: [{ bankName: 'ICBC' }] } } })
  })

  it('exports paths for the list shapes at top level and one level down', () => {
    for (const path of [
      'contacts[*].contactPhone',
      '*.contacts[*].contactPhone',
      'initialAccounts[*].accountNo',
      '*.initialAccounts[*].accountNo',
      'accounts[*].accountNo',
      '*.accounts[*].accountNo',
      '*.*.authorization',
    ]) {
      expect(REDACT_PATHS).toContain(path)
    }
  })

  it('honours the level', () => {
    const { logger, lines } = memoryLogger('warn')
    logger.info('hidden')
    logger.warn('shown')
    expect(lines).toHaveLength(1)
  })
})

describe('accessLog', () => {
  function app() {
    const { logger, lines, records } = memoryLogger()
    // The app's Env carries more variables than accessLog declares; it must still plug in.
    const hono = new Hono<{ Variables: AccessLogVariables & { other: boolean } }>()
    // The default handler prints the error (and so the tax number) to stderr.
    hono.onError((_err, c) => c.json({ code: 500 }, 500))
    hono.use(async (c, next) => {
      c.set('requestId', 'req-1')
      c.set('adminId', '10001')
      await next()
    })
    hono.use(accessLog(logger))
    hono.post('/items/:id', async (c) => {
      const body = await c.req.json<unknown>()
      logger.debug({ body }, 'not at info level')
      c.set('resultCode', 0)
      return c.json({ code: 0, data: { id: c.req.param('id') } })
    })
    hono.get('/items/:id', (c) => {
      c.set('resultCode', 0)
      return c.json({ code: 0, data: { id: c.req.param('id') } })
    })
    hono.get('/boom', () => {
      throw new Error(`failed for ${TAX_NO}`)
    })
    return { hono, lines, records }
  }

  it('writes one line with the route pattern and nothing from the URL, headers or body', async () => {
    const { hono, lines, records } = app()
    const res = await hono.request(`/items/123?taxNo=${TAX_NO}`, {
      headers: { authorization: BEARER },
    })
    expect(res.status).toBe(200)
    expect(lines).toHaveLength(1)
    const [record] = records()
    expect(record).toMatchObject({
      msg: 'request',
      requestId: 'req-1',
      method: 'GET',
      route: '/items/:id',
      status: 200,
      code: 0,
      adminId: '10001',
    })
    expect(typeof record?.durationMs).toBe('number')
    expectNoSecrets(lines[0] ?? '')
    expect(lines[0]).not.toContain('/items/123')
  })

  it('does not log request bodies', async () => {
    const { hono, lines } = app()
    const res = await hono.request('/items/9', {
      method: 'POST',
      headers: { authorization: BEARER, 'content-type': 'application/json' },
      body: JSON.stringify({ taxNo: TAX_NO, contacts: [{ contactPhone: PHONE }] }),
    })
    expect(res.status).toBe(200)
    expect(lines).toHaveLength(1)
    expectNoSecrets(lines[0] ?? '')
  })

  it('logs unmatched routes without the raw path and errors with their final status', async () => {
    const { hono, lines, records } = app()
    await hono.request(`/nowhere/${TAX_NO}`)
    const errorRes = await hono.request('/boom')
    expect(errorRes.status).toBe(500)
    expect(lines).toHaveLength(2)
    const [missing, failed] = records()
    expect(missing).toMatchObject({ status: 404, route: '/*' })
    expect(missing?.code).toBeUndefined()
    expect(failed).toMatchObject({ status: 500, route: '/boom' })
    expectNoSecrets(lines.join(''))
  })
})

describe('log formats', () => {
  const pretty = (env: { NO_COLOR?: string } = {}) => {
    const lines: string[] = []
    const saved = process.env.NO_COLOR
    if (env.NO_COLOR === undefined) delete process.env.NO_COLOR
    else process.env.NO_COLOR = env.NO_COLOR
    try {
      const logger = createLogger({
        level: 'info',
        format: 'pretty',
        destination: new Writable({
          write(chunk, _encoding, done) {
            lines.push(String(chunk))
            done()
          },
        }),
      })
      return { logger, lines }
    } finally {
      if (saved === undefined) delete process.env.NO_COLOR
      else process.env.NO_COLOR = saved
    }
  }

  it('pretty: one coloured line per record with a readable local time, level and message', () => {
    const { logger, lines } = pretty()
    logger.info({ migration: '20261121000100_core.sql', duration: '12ms' }, 'migration applied')
    logger.warn('careful')
    const text = lines.join('')
    expect(text.trimEnd().split('\n')).toHaveLength(2)
    // eslint-disable-next-line no-control-regex
    expect(text).toMatch(/\u001b\[\d+m/)
    // eslint-disable-next-line no-control-regex
    const plain = text.replace(/\u001b\[\d+m/g, '')
    expect(plain).toMatch(
      /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\] INFO: migration applied .*"migration":"20261121000100_core.sql"/m,
    )
    expect(plain).toMatch(/WARN: careful/)
    expect(plain).not.toContain('"level"')
  })

  it('pretty is redacted too, and NO_COLOR turns colour off', () => {
    const { logger, lines } = pretty({ NO_COLOR: '1' })
    logger.info({ taxNo: TAX_NO, contacts: [{ contactPhone: PHONE }] }, 'write')
    expectNoSecrets(lines.join(''))
    expect(lines.join('')).toContain('[REDACTED]')
    // eslint-disable-next-line no-control-regex
    expect(lines.join('')).not.toMatch(/\u001b\[/)
  })

  it('json (the default) stays one JSON object per line', () => {
    const { logger, records } = memoryLogger()
    logger.info({ migration: 'x.sql' }, 'migration applied')
    expect(records()).toEqual([expect.objectContaining({ level: 30, msg: 'migration applied' })])
  })
})

describe("dbmate's report, one entry per migration", () => {
  it('appliedMigrations lists each applied file with its duration', () => {
    const output =
      'Applying: 20261121000100_core.sql\nApplied: 20261121000100_core.sql in 1.35s\n' +
      'Applying: 20261121000200_resources.sql\nApplied: 20261121000200_resources.sql in 412ms\n'
    expect(appliedMigrations(output)).toEqual([
      { migration: '20261121000100_core.sql', duration: '1.35s' },
      { migration: '20261121000200_resources.sql', duration: '412ms' },
    ])
    expect(appliedMigrations('')).toEqual([])
  })
})
