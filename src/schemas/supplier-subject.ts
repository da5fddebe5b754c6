import { z } from 'zod'
import { maskPhone, maskTaxNo } from '../crypto/sensitive'
import { LIMITS, STAFF_SCALES } from '../vocabulary'
import { dateString } from './calendar'
import { bytes, nameText, phone, text } from './text'

/*
 * The subject fields of a supplier, declared once, in the spec's order, which the requests and the
 * detail keep. A plain field and fullName are stored in the column named after them (`columnOf`,
 * sql/db.ts), the sensitive ones and taxNo as ciphertext (with a mask or a blind index where they
 * have one); the change log and the events name each by its field name.
 * Derived from here: the fields of the draft, update and submit requests and of the detail
 * (./supplier.ts); the supplier row, its write columns and the select lists of the row and the
 * detail (sql/supplier.ts, sql/supplier-read.ts); which fields a form stores as sent
 * (src/domain/supplier/form.ts); the subject of the reference page's examples
 * (src/http/examples.ts).
 */

interface SubjectField {
  /** The value as a request sends it, within the spec's bounds. */
  input: z.ZodType<string>
  /** Every form carries it; the others may be left out, or sent as null to clear them. */
  required?: true
  /**
   * How the value is kept: `plain`, as sent (empty → null), and shown and logged as stored;
   * `identity`, normalized and checked before the write (src/domain/supplier/form.ts,
   * `identityOf`); `sensitive`, encrypted, shown only as its mask where it has one.
   */
  kind: 'plain' | 'identity' | 'sensitive'
  /** The detail shows the field as this mask of its value, under `<field>Mask`. */
  mask?: (value: string) => string | null
  /** The value of the reference page's supplier (src/http/examples.ts); null: it has none. */
  example: string | null
}

export const SUBJECT_FIELDS = {
  fullName: {
    input: z.string().max(LIMITS.fullName * 2),
    required: true,
    kind: 'identity',
    example: '杭州湖畔旅游服务有限公司',
  },
  shortName: {
    input: nameText(LIMITS.shortName, `at most ${LIMITS.shortName} characters`),
    kind: 'plain',
    example: '湖畔旅游',
  },
  taxNo: {
    input: z
      .string()
      .describe(
        'compared half-width, without whitespace, upper case; 18 characters of the unified social credit code alphabet must end in the right check character (GB 32100-2015)',
      ),
    required: true,
    kind: 'identity',
    mask: maskTaxNo,
    example: '91330106MA2KXY712Q',
  },
  legalRepresentative: {
    input: nameText(LIMITS.legalRepresentative, `at most ${LIMITS.legalRepresentative} characters`),
    kind: 'plain',
    example: '陈建国',
  },
  contactPhone: {
    input: phone(0, LIMITS.companyPhone),
    kind: 'sensitive',
    mask: maskPhone,
    example: '0571-8796 2288',
  },
  establishDate: { input: dateString, kind: 'plain', example: '2016-05-18' },
  registeredCapital: { input: text(LIMITS.registeredCapital), kind: 'plain', example: '500万元' },
  businessScope: {
    input: text(LIMITS.businessScope),
    kind: 'plain',
    example: '旅游咨询；导游服务；景区门票代理',
  },
  address: { input: text(LIMITS.address), kind: 'plain', example: '浙江省杭州市西湖区龙井路1号' },
  staffScale: { input: z.enum(STAFF_SCALES), kind: 'plain', example: 'R50_200' },
  mainCooperation: {
    input: bytes(1, LIMITS.mainCooperationBytes),
    required: true,
    kind: 'plain',
    example: '导游与门票',
  },
  licenseImageUrl: {
    input: text(LIMITS.licenseImageUrl),
    kind: 'plain',
    example: 'https://storage.example.com/supplier/license.png',
  },
  approveNote: { input: bytes(0, LIMITS.noteBytes), kind: 'sensitive', example: null },
  remark: { input: bytes(0, LIMITS.noteBytes), kind: 'plain', example: null },
} as const satisfies Record<string, SubjectField>

type Fields = typeof SUBJECT_FIELDS
type SubjectFieldName = keyof Fields

const FIELD_NAMES = Object.keys(SUBJECT_FIELDS) as SubjectFieldName[]
const fieldOf = (name: SubjectFieldName): SubjectField => SUBJECT_FIELDS[name]

/** The fields kept as sent (`kind: 'plain'`), in order. */
export type PlainSubjectField = {
  [F in SubjectFieldName]: Fields[F]['kind'] extends 'plain' ? F : never
}[SubjectFieldName]
export const PLAIN_SUBJECT_FIELDS = FIELD_NAMES.filter(
  (name): name is PlainSubjectField => fieldOf(name).kind === 'plain',
)

/** The subject as a form sends it: a required field must be there, the others may be null. */
export const SubjectRequest = z.object(
  Object.fromEntries(
    FIELD_NAMES.map((name) => {
      const field = fieldOf(name)
      return [name, field.required ? field.input : field.input.nullish()]
    }),
  ) as {
    [F in SubjectFieldName]: Fields[F] extends { required: true }
      ? Fields[F]['input']
      : z.ZodOptional<z.ZodNullable<Fields[F]['input']>>
  },
)

/** The name the detail shows a field under: its mask's, or none for a sensitive one without. */
type ShownAs<F extends SubjectFieldName> = Fields[F] extends { mask: unknown }
  ? `${F}Mask`
  : Fields[F]['kind'] extends 'sensitive'
    ? never
    : F
const shownAs = (name: SubjectFieldName) => {
  const field = fieldOf(name)
  return field.mask ? `${name}Mask` : field.kind === 'sensitive' ? null : name
}

/** The subject as the detail shows it: a required field is never null once stored. */
export const SubjectView = z.object(
  Object.fromEntries(
    FIELD_NAMES.flatMap((name) => {
      const as = shownAs(name)
      return as ? [[as, fieldOf(name).required ? z.string() : z.string().nullable()]] : []
    }),
  ) as {
    [F in SubjectFieldName as ShownAs<F>]: Fields[F] extends { required: true }
      ? z.ZodString
      : z.ZodNullable<z.ZodString>
  },
)

/** The reference page's supplier, as a form sends it. */
export const SUBJECT_EXAMPLE = Object.fromEntries(
  FIELD_NAMES.map((name) => [name, fieldOf(name).example]),
) as { [F in SubjectFieldName]: Fields[F]['example'] }

/** The same supplier as the detail shows it, masked as the service masks. */
export const SUBJECT_VIEW_EXAMPLE = Object.fromEntries(
  FIELD_NAMES.flatMap((name) => {
    const { mask, example } = fieldOf(name)
    const as = shownAs(name)
    return as ? [[as, mask && example !== null ? mask(example) : example]] : []
  }),
) as z.output<typeof SubjectView>
