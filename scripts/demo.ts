import { sign } from 'hono/jwt'
import { loadConfig } from '../src/config'
import { developmentByDefault, withDotEnv } from '../src/dotenv'
import { DRAFT_EXAMPLE } from '../src/http/examples'
import { withCheckCharacter } from '../src/domain/supplier/uscc'

/**
 * `npm run demo`: walks a supplier from draft to ACTIVE against a running service (`npm start`
 * in another terminal; BASE_URL, default http://127.0.0.1:$PORT or :8787) and prints every
 * request with the answer's code and the fields that matter. Exits non-zero if a step fails.
 */
// The secret `npm start` verifies with: NODE_ENV=development and `.env`, as it reads them.
developmentByDefault(process.env)
const config = loadConfig(withDotEnv(process.env))
const base = (process.env.BASE_URL ?? `http://127.0.0.1:${process.env.PORT || 8787}`).replace(
  /\/+$/,
  '',
)
const adminId = config.demoAdminId
if (!config.auth.jwtSecret) {
  console.error('AUTH_JWKS_URL is set: the demo needs the HS256 development token')
  process.exit(1)
}
const token = await sign(
  {
    sub: adminId,
    iat: Math.floor(Date.now() / 1000),
    exp: Math.floor(Date.now() / 1000) + 600,
    iss: config.auth.issuer,
    aud: config.auth.audience,
  },
  config.auth.jwtSecret,
  'HS256',
)

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the demo prints what it is given
type Answer = { code: number; message: string; success: boolean; data: any }

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  let res: Response
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'x-admin-id': adminId,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch {
    console.error(`cannot reach ${base}: start the service first (npm start), or set BASE_URL`)
    process.exit(1)
  }
  const answer = (await res.json()) as Answer
  console.log(`${method} ${path}\n  → HTTP ${res.status}, code ${answer.code} ${answer.message}`)
  return answer
}

function expectSuccess(answer: Answer, what: string) {
  if (answer.success) return
  console.error(`demo stopped: ${what} answered ${answer.code} (${answer.message})`)
  process.exit(1)
}

const show = (fields: Record<string, unknown>) =>
  console.log(
    Object.entries(fields)
      .map(([k, v]) => `    ${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`)
      .join('\n'),
  )

console.log(`supplier-admin demo against ${base} as administrator ${adminId}\n`)

const types = await call('GET', '/admin/dict/data/supplier_type')
expectSuccess(types, 'the supplier_type dictionary')
show({ typeCodes: types.data.map((t: { dictValue: string }) => t.dictValue).join(', ') })

// A tax number (a unified social credit code, its check character right) and an account number
// of their own on every run: both are unique among live suppliers (C-02, C-19).
const digits = (n: number) =>
  Array.from({ length: n }, () => Math.floor(Math.random() * 10)).join('')
const draft = {
  ...DRAFT_EXAMPLE,
  taxNo: withCheckCharacter(`9133${digits(13)}`),
  initialAccounts: DRAFT_EXAMPLE.initialAccounts.map((a) => ({
    ...a,
    accountNo: `6222 0212 ${digits(4)} ${digits(4)} ${digits(3)}`,
  })),
}
console.log('\n1. create a draft (SUP-ADM-003)')
let created = await call('POST', '/admin/supplier/items', draft)
let duplicateConfirmToken: string | undefined
if (created.code === 395006) {
  // Similar suppliers exist (an earlier run of this demo): the answer lists them with a token
  // that confirms we saw them; sending it back proceeds.
  show({ candidates: created.data.candidates.map((c: { fullName: string }) => c.fullName) })
  duplicateConfirmToken = created.data.duplicateConfirmToken
  console.log('   similar suppliers exist: confirming with the duplicateConfirmToken')
  created = await call('POST', '/admin/supplier/items', { ...draft, duplicateConfirmToken })
}
expectSuccess(created, 'create')
const { supplierId, updateTime } = created.data
show({ supplierId, status: created.data.status, updateTime })

console.log('\n2. read the draft back (SUP-ADM-002) for the ids of its contacts')
const draftDetail = await call('GET', `/admin/supplier/items/${supplierId}`)
expectSuccess(draftDetail, 'draft detail')
// The submit carries the final form: a contact sent without its contactId is a new contact, and
// the draft's one would be removed and added again. The phone is masked in the answer, so it
// comes from what we sent.
const contacts = draft.contacts.map((contact) => {
  const saved = draftDetail.data.contacts.find(
    (c: { contactName: string }) => c.contactName === contact.contactName,
  )
  return { ...contact, contactId: saved.contactId as string }
})
show({ contactIds: contacts.map((c) => c.contactId).join(', ') })

console.log('\n3. submit the registration (SUP-ADM-007); LOCAL_AUTO approves and applies it')
const submitted = await call('POST', `/admin/supplier/items/${supplierId}/submit`, {
  ...draft,
  contacts,
  duplicateConfirmToken,
  expectedUpdateTime: draftDetail.data.updateTime,
})
if (submitted.code === 395006) {
  console.error('demo stopped: a similar supplier appeared meanwhile; run the demo again')
  process.exit(1)
}
expectSuccess(submitted, 'submit')
show({
  approvalLogId: submitted.data.approvalLogId,
  approvalStatus: submitted.data.approvalStatus,
})

console.log('\n4. read it back (SUP-ADM-002)')
const detail = await call('GET', `/admin/supplier/items/${supplierId}`)
expectSuccess(detail, 'detail')
show({
  supplierNo: detail.data.supplierNo,
  status: detail.data.status,
  taxNoMask: detail.data.taxNoMask,
})

console.log('\n5. its approval records (SUP-ADM-012)')
const records = await call('GET', `/admin/supplier/approval-records?supplierId=${supplierId}`)
expectSuccess(records, 'approval records')
console.log(`    ${records.data.total} change-log rows, newest first:`)
for (const r of records.data.records.slice(0, 8)) {
  // The target tells the supplier's own status from its account's; a child names its id.
  const target = r.targetType === 'SUPPLIER' ? 'SUPPLIER' : `${r.targetType} ${r.targetId}`
  const [from, to] = [r.oldValueMasked ?? '(none)', r.newValueMasked ?? '(removed)']
  console.log(`    ${r.createTime} ${r.operationType} ${target} ${r.fieldName}: ${from} → ${to}`)
}

if (detail.data.status !== 'ACTIVE') {
  console.error(`\ndemo ended with status ${detail.data.status}, not ACTIVE`)
  process.exit(1)
}
console.log(`\nsupplier ${supplierId} went DRAFT → VETTING → ACTIVE as ${detail.data.supplierNo}`)
