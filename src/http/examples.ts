import { z } from 'zod'
import { SupplierApprovalRecordVO } from '../schemas/change-log'
import { lifecycleTransitions } from '../domain/lifecycle/actions'
import { AllowedActions, LifecycleTransitionVO, LifecycleTransitionsVO } from '../schemas/lifecycle'
import { ExpiringQualificationVO } from '../schemas/compliance'
import { DictItem } from '../schemas/dictionary'
import { QualificationRuleReplaceRequest, QualificationRuleVO } from '../schemas/qualification-rule'
import {
  BankAccountChangeRequest,
  BankAccountSubmitResultVO,
  DefaultAccountRequest,
  SupplierAccountInfoVO,
  SupplierBankAccountBatchCreateRequest,
  SupplierBankAccountVO,
} from '../schemas/account'
import {
  SupplierResourceInfoRespVO,
  SupplierResourceReassignRequest,
  SupplierResourceRelationVO,
  SupplierResourceUnbindRequest,
} from '../schemas/resource'
import {
  ApprovalCommandResult,
  ArchiveResult,
  BankAccountInput,
  ContactInput,
  ContactMergeInput,
  ContactReplaceRequest,
  ContactView,
  ContractMergeInput,
  EvaluationMergeInput,
  QualificationInput,
  QualificationMergeInput,
  SupplierBasicInfoVO,
  SupplierDraftRequest,
  SupplierListItemVO,
  SupplierStatusRequest,
  SupplierSubmitRequest,
  SupplierUpdateRequest,
  SupplierWriteResult,
  TypeInput,
} from '../schemas/supplier'
import { SUBJECT_EXAMPLE, SUBJECT_VIEW_EXAMPLE } from '../schemas/supplier-subject'
import { InternalErrorData, MissingQualifications, NearDuplicateConfirmation } from '../errors'
import { pageSchema } from './envelope'

/*
 * The examples /openapi.json shows: one supplier's life told through every request and every
 * success answer, with the values the service really gives (ids above 2^53 as strings, times in
 * `yyyy-MM-dd HH:mm:ss`, masks as the service masks). Each is typed against the schema it
 * illustrates, registered on that schema, and composed by the document into each operation's
 * request and success examples; test/openapi-examples.test.ts validates every one against the
 * document's own schemas. Importing this module registers them.
 */

/** Registers `value` as the example of a response schema, typed by what the schema outputs. */
function example<T extends z.ZodType>(schema: T, value: z.output<T>): z.output<T> {
  z.globalRegistry.add(schema, { ...z.globalRegistry.get(schema), examples: [value] })
  return value
}

/** Registers `value` as the example of a request schema, typed by what a client sends. */
function requestExample<T extends z.ZodType>(schema: T, value: z.input<T>): z.input<T> {
  z.globalRegistry.add(schema, { ...z.globalRegistry.get(schema), examples: [value] })
  return value
}

type ItemOf<T> = T extends z.ZodArray<infer E> ? E : never

/** The element schema of an array property of an object schema (a nested component). */
const itemOf = <S extends z.ZodObject, K extends keyof S['shape'] & string>(schema: S, key: K) =>
  (schema.shape[key] as z.ZodArray<z.ZodType>).element as unknown as ItemOf<S['shape'][K]>

/** A draft as the reference page shows it (and as `npm run demo` sends it). */
export const DRAFT_EXAMPLE = {
  fullName: SUBJECT_EXAMPLE.fullName,
  shortName: SUBJECT_EXAMPLE.shortName,
  taxNo: SUBJECT_EXAMPLE.taxNo,
  types: [{ typeCode: 'OTHER', isPrimary: true }],
  mainCooperation: SUBJECT_EXAMPLE.mainCooperation,
  licenseImageUrl: SUBJECT_EXAMPLE.licenseImageUrl,
  contacts: [{ contactName: '王芳', contactPhone: '13800138000', contactRole: '商务经理' }],
  initialAccounts: [
    {
      accountType: 'CORPORATE',
      bankName: '工商银行杭州分行',
      accountNo: '6222 0212 3456 7890 123',
      settleMode: 'MONTHLY',
      accountPeriod: 30,
      invoiceType: 'SPECIAL',
      taxRate: 6,
    },
  ],
} satisfies z.input<typeof SupplierDraftRequest>
requestExample(SupplierDraftRequest, DRAFT_EXAMPLE)

// The story: 杭州湖畔旅游服务有限公司 (the draft of `npm run demo`) is registered and approved,
// keeps a second account, binds a scenic resource, and is suspended for a qualification review.
const SUPPLIER_ID = '9007199254741007'
const SUPPLIER_NO = 'SP20261120100007'
const FULL_NAME = SUBJECT_EXAMPLE.fullName
const CONTACT_ID = '9007199254741009'
const QUALIFICATION_ID = '9007199254741011'
const ACCOUNT_ID = '9007199254741013'
const SECOND_ACCOUNT_ID = '9007199254741027'
const REGISTRATION_ID = '9007199254741015'
const OPERATOR_ID = '10001'
const CREATED = '2026-11-20 09:30:00'
const SUBMITTED = '2026-11-20 09:42:15'
const UPDATED = '2026-11-21 14:05:32'

// Requests -----------------------------------------------------------------------------------

requestExample(TypeInput, DRAFT_EXAMPLE.types[0])
requestExample(ContactInput, DRAFT_EXAMPLE.contacts[0])
requestExample(BankAccountInput, DRAFT_EXAMPLE.initialAccounts[0])
const QUALIFICATION_INPUT = requestExample(QualificationInput, {
  qualType: 'BUSINESS_LICENSE',
  certNo: 'JY23301060012345',
  imageUrl: 'https://storage.example.com/supplier/qualification/business-license.png',
  expiryDate: '2036-05-17',
})
requestExample(ContactMergeInput, {
  contactId: CONTACT_ID,
  expectedUpdateTime: CREATED,
  contactName: '王芳',
  contactPhone: '13800138000',
  contactRole: '商务经理',
})
requestExample(QualificationMergeInput, {
  qualificationId: QUALIFICATION_ID,
  expectedUpdateTime: CREATED,
  ...QUALIFICATION_INPUT,
})

requestExample(ContractMergeInput, { contractId: '9007199254741037', expectedUpdateTime: CREATED })
requestExample(EvaluationMergeInput, {
  evaluationId: '9007199254741039',
  expectedUpdateTime: CREATED,
})

requestExample(SupplierUpdateRequest, {
  address: SUBJECT_EXAMPLE.address,
  businessScope: SUBJECT_EXAMPLE.businessScope,
  contacts: [
    {
      contactId: CONTACT_ID,
      expectedUpdateTime: CREATED,
      contactName: '王芳',
      contactPhone: '13800138000',
      contactRole: '商务经理',
    },
    { contactName: '李强', contactPhone: '13912345678', contactRole: '财务' },
  ],
  changeReason: '补充注册地址与财务联系人',
  expectedUpdateTime: CREATED,
})

requestExample(SupplierSubmitRequest, {
  fullName: FULL_NAME,
  shortName: SUBJECT_EXAMPLE.shortName,
  taxNo: SUBJECT_EXAMPLE.taxNo,
  types: [{ typeCode: 'OTHER', isPrimary: true }],
  legalRepresentative: SUBJECT_EXAMPLE.legalRepresentative,
  contactPhone: SUBJECT_EXAMPLE.contactPhone,
  establishDate: SUBJECT_EXAMPLE.establishDate,
  mainCooperation: SUBJECT_EXAMPLE.mainCooperation,
  licenseImageUrl: SUBJECT_EXAMPLE.licenseImageUrl,
  contacts: [
    {
      contactId: CONTACT_ID,
      contactName: '王芳',
      contactPhone: '13800138000',
      contactRole: '商务经理',
    },
  ],
  qualifications: [{ qualificationId: QUALIFICATION_ID, ...QUALIFICATION_INPUT }],
  submitNote: '营业执照与开户证明已上传，请审核',
  expectedUpdateTime: CREATED,
})

requestExample(ContactReplaceRequest, {
  contacts: [
    {
      contactId: CONTACT_ID,
      expectedUpdateTime: UPDATED,
      contactName: '王芳',
      contactPhone: '13800138000',
      contactRole: '商务经理',
    },
    { contactName: '李强', contactPhone: '13912345678', contactRole: '财务', remark: '对账联系人' },
  ],
  changeReason: '新增财务联系人',
  expectedUpdateTime: UPDATED,
})

requestExample(SupplierStatusRequest, {
  targetStatus: 'SUSPENDED',
  changeReason: '营业执照年检复核期间暂停合作',
  expectedUpdateTime: UPDATED,
})

const RULE_INPUT = requestExample(itemOf(QualificationRuleReplaceRequest, 'rules'), {
  qualType: 'BUSINESS_LICENSE',
  isRequired: true,
  warningDays: 30,
  sortOrder: 1,
})
requestExample(QualificationRuleReplaceRequest, {
  rules: [
    RULE_INPUT,
    { qualType: 'TRAVEL_AGENCY_PERMIT', isRequired: true, warningDays: 60, sortOrder: 2 },
  ],
})

const SECOND_ACCOUNT: z.input<typeof BankAccountInput> & { bankBranch: string } = {
  accountType: 'CORPORATE',
  bankName: '招商银行杭州分行',
  bankBranch: '城西支行',
  accountNo: '6214 8301 2345 6789',
  proofFileUrls: ['https://storage.example.com/supplier/proof/open-account-permit.pdf'],
  settleMode: 'PER_ORDER',
  invoiceType: 'NORMAL',
  taxRate: 3,
}
requestExample(SupplierBankAccountBatchCreateRequest, { accounts: [SECOND_ACCOUNT] })
requestExample(BankAccountChangeRequest, {
  bankBranch: '文三路支行',
  changeReason: '开户支行变更',
  expectedUpdateTime: UPDATED,
})
requestExample(DefaultAccountRequest, { expectedUpdateTime: UPDATED })

requestExample(SupplierResourceReassignRequest, {
  supplierId: SUPPLIER_ID,
  requiredTypeCode: 'OTHER',
  remark: '西湖游船讲解由该供应商提供',
  changeReason: '新签合作',
})
requestExample(SupplierResourceUnbindRequest, {
  expectedCurrentSupplierId: SUPPLIER_ID,
  expectedRelationUpdateTime: '2026-11-22 10:00:00',
  changeReason: '合作终止',
})

// Answers ------------------------------------------------------------------------------------

example(DictItem, {
  dictType: 'supplier_type',
  dictLabel: '景区',
  dictValue: 'SCENIC',
  sortOrder: 1,
  status: 'ACTIVE',
})

const TYPE = example(itemOf(SupplierListItemVO, 'types'), {
  typeCode: 'OTHER',
  typeName: '其他',
  isPrimary: true,
})

const LIST_ITEM = example(SupplierListItemVO, {
  supplierId: SUPPLIER_ID,
  supplierNo: SUPPLIER_NO,
  fullName: FULL_NAME,
  shortName: SUBJECT_EXAMPLE.shortName,
  types: [TYPE],
  status: 'ACTIVE',
  creditLevel: null,
  totalScore: null,
  activeAccountCount: 2,
  createTime: CREATED,
  updateTime: UPDATED,
})
example(pageSchema(SupplierListItemVO), {
  records: [
    LIST_ITEM,
    {
      supplierId: '9007199254741021',
      supplierNo: 'SP20261118100003',
      fullName: '杭州西湖文旅发展有限公司',
      shortName: '西湖文旅',
      types: [
        { typeCode: 'SCENIC', typeName: '景区', isPrimary: true },
        { typeCode: 'TICKET', typeName: '票务', isPrimary: false },
      ],
      status: 'ACTIVE',
      creditLevel: 'A',
      totalScore: 92.5,
      activeAccountCount: 1,
      createTime: '2026-11-18 16:20:41',
      updateTime: '2026-11-19 11:02:09',
    },
  ],
  total: 2,
  page: 1,
  pageSize: 20,
})

const CONTACT = example(ContactView, {
  contactId: CONTACT_ID,
  contactName: '王芳',
  contactPhoneMask: '138****8000',
  contactRole: '商务经理',
  remark: null,
  status: 'ACTIVE',
  updateTime: CREATED,
})

const QUALIFICATION = example(itemOf(SupplierBasicInfoVO, 'qualifications'), {
  qualificationId: QUALIFICATION_ID,
  qualType: 'BUSINESS_LICENSE',
  certNoMask: 'JY**********2345',
  imageUrl: QUALIFICATION_INPUT.imageUrl ?? null,
  expiryDate: '2036-05-17',
  isRequired: true,
  status: 'ACTIVE',
  updateTime: CREATED,
})

const COMPLIANCE = example(itemOf(SupplierBasicInfoVO, 'compliance'), {
  typeCode: 'OTHER',
  state: 'OK',
  requiredQualifications: [
    {
      qualType: 'BUSINESS_LICENSE',
      state: 'OK',
      expiryDate: '2036-05-17',
      daysLeft: 3465,
      warningDays: 30,
    },
  ],
})

// What the demo administrator (every permission) may do with the ACTIVE supplier now.
const ALLOWED_ACTIONS = example(AllowedActions, {
  statusTargets: ['SUSPENDED', 'FROZEN', 'BLACKLIST'],
  updateSupplier: true,
  replaceSupplierContacts: true,
  submitSupplierRegistration: false,
  deleteSupplierDraft: false,
  changeSupplierStatus: true,
  archiveSupplier: false,
  createSupplierAccounts: true,
  changeSupplierAccount: true,
  setDefaultSupplierAccount: true,
  setResourceRelation: true,
  unbindResourceRelation: true,
})

example(SupplierBasicInfoVO, {
  supplierId: SUPPLIER_ID,
  supplierNo: SUPPLIER_NO,
  ...SUBJECT_VIEW_EXAMPLE,
  status: 'ACTIVE',
  updateTime: UPDATED,
  types: [TYPE],
  contacts: [CONTACT],
  qualifications: [QUALIFICATION],
  compliance: [COMPLIANCE],
  creditLevel: null,
  totalScore: null,
  createTime: CREATED,
  allowedActions: ALLOWED_ACTIONS,
})

example(LifecycleTransitionVO, {
  from: 'ACTIVE',
  to: 'SUSPENDED',
  trigger: 'SUSPEND',
  command: 'STATUS',
  bizType: 'STATUS_CHANGE',
  subType: 'STATUS_SUSPEND',
  approvalLevels: 1,
  guard: 'NONE',
})
// The whole table, as the service answers it.
example(LifecycleTransitionsVO, lifecycleTransitions())

const ACCOUNT: z.output<typeof SupplierBankAccountVO> = {
  accountId: ACCOUNT_ID,
  accountName: FULL_NAME,
  accountType: 'CORPORATE',
  bankName: '工商银行杭州分行',
  bankBranch: null,
  accountNoMask: '**** **** 0123',
  settleMode: 'MONTHLY',
  accountPeriod: 30,
  invoiceType: 'SPECIAL',
  taxRate: 6,
  status: 'ACTIVE',
  isDefault: 'YES',
  riskFlags: [],
  updateTime: SUBMITTED,
}
// The second account once applied: its detail shows the proofs, the supplier's list does not.
const { proofFileUrls: _proofs, ...SECOND_ACCOUNT_LISTED } = example(SupplierBankAccountVO, {
  accountId: SECOND_ACCOUNT_ID,
  accountName: FULL_NAME,
  accountType: 'CORPORATE',
  bankName: SECOND_ACCOUNT.bankName,
  bankBranch: SECOND_ACCOUNT.bankBranch,
  accountNoMask: '**** **** 6789',
  settleMode: 'PER_ORDER',
  accountPeriod: null,
  invoiceType: 'NORMAL',
  taxRate: 3,
  status: 'ACTIVE',
  isDefault: 'NO',
  riskFlags: [],
  proofFileUrls: SECOND_ACCOUNT.proofFileUrls,
  updateTime: UPDATED,
})
example(SupplierAccountInfoVO, {
  supplierId: SUPPLIER_ID,
  bankAccounts: [ACCOUNT, SECOND_ACCOUNT_LISTED],
  updateTime: UPDATED,
})

const RECORD = example(SupplierApprovalRecordVO, {
  changeLogId: '9007199254741019',
  supplierId: SUPPLIER_ID,
  approvalLogId: REGISTRATION_ID,
  operationType: 'REGISTRATION_APPLY',
  targetType: 'SUPPLIER',
  targetId: SUPPLIER_ID,
  fieldName: 'status',
  oldValueMasked: 'VETTING',
  newValueMasked: 'ACTIVE',
  changeReason: null,
  status: 'APPLIED',
  operatorId: OPERATOR_ID,
  createTime: SUBMITTED,
  hasOpinion: false,
})
example(pageSchema(SupplierApprovalRecordVO), {
  records: [
    RECORD,
    {
      ...RECORD,
      changeLogId: '9007199254741017',
      operationType: 'REGISTRATION_SUBMIT',
      oldValueMasked: 'DRAFT',
      newValueMasked: 'VETTING',
      status: 'SUBMITTED',
    },
  ],
  total: 14,
  page: 1,
  pageSize: 20,
})

example(QualificationRuleVO, {
  ruleId: '9007199254741003',
  typeCode: 'OTHER',
  qualType: 'BUSINESS_LICENSE',
  isRequired: true,
  warningDays: 30,
  sortOrder: 1,
  updateTime: '2026-11-19 08:00:00',
})

const EXPIRING = example(ExpiringQualificationVO, {
  qualificationId: '9007199254741025',
  supplierId: '9007199254741021',
  supplierNo: 'SP20261118100003',
  fullName: '杭州西湖文旅发展有限公司',
  supplierStatus: 'ACTIVE',
  qualType: 'SCENIC_OPERATION_PERMIT',
  certNoMask: 'ZJ**********0417',
  expiryDate: '2026-12-15',
  daysLeft: 24,
  typeCodes: ['SCENIC'],
  warningDays: 30,
})
example(pageSchema(ExpiringQualificationVO), {
  records: [EXPIRING],
  total: 1,
  page: 1,
  pageSize: 20,
})

example(SupplierWriteResult, {
  supplierId: SUPPLIER_ID,
  supplierNo: null,
  status: 'DRAFT',
  onboardingStage: 'PROFILE_DRAFT',
  initialAccounts: [{ accountId: ACCOUNT_ID, accountNoMask: '**** **** 0123', status: 'DRAFT' }],
  updateTime: CREATED,
})

example(ApprovalCommandResult, {
  approvalLogId: REGISTRATION_ID,
  requestNo: `REG-${SUPPLIER_ID}-3f1c2a9e-5b7d-4e21-9c8a-0d6f4b2e71a5`,
  provider: 'LOCAL_AUTO',
  approvalStatus: 'APPLIED',
  businessApplied: true,
  spNo: '',
  spStatus: '',
  syncStatus: 'NOT_REQUIRED',
  submittedAt: SUBMITTED,
  finishedAt: SUBMITTED,
})

example(ArchiveResult, {
  supplierId: SUPPLIER_ID,
  status: 'ARCHIVED',
  clearanceRequestId: `FC-${SUPPLIER_ID}`,
  checkedAt: '2026-12-01 16:00:00',
  ledgerRevision: '77120',
  updateTime: '2026-12-01 16:00:03',
})

example(BankAccountSubmitResultVO, {
  accountId: SECOND_ACCOUNT_ID,
  approvalLogId: '9007199254741029',
  requestNo: `ACC-${SECOND_ACCOUNT_ID}-9b2e4c71-0f3a-4d8e-a6b5-2c7d1e9f8a30`,
  provider: 'LOCAL_AUTO',
  approvalStatus: 'APPLIED',
  syncStatus: 'NOT_REQUIRED',
  accountStatus: 'ACTIVE',
  isDefault: 'NO',
  submittedAt: UPDATED,
  finishedAt: UPDATED,
})

example(SupplierResourceRelationVO, {
  relationId: '9007199254741043',
  supplierId: SUPPLIER_ID,
  supplierNo: SUPPLIER_NO,
  supplierName: FULL_NAME,
  resourceModule: 'SCENIC',
  moduleName: '景区管理',
  resourceId: '9007199254741041',
  resourceName: '西湖游船',
  requiredTypeCode: 'OTHER',
  requiredTypeName: '其他',
  remark: '西湖游船讲解由该供应商提供',
  available: true,
  reasons: [],
  createTime: '2026-11-22 10:00:00',
  updateTime: '2026-11-22 10:00:00',
})

const RESOURCE_INFO = example(SupplierResourceInfoRespVO, {
  relationId: '9007199254741043',
  resourceModule: 'SCENIC',
  moduleName: '景区管理',
  resourceId: '9007199254741041',
  resourceName: '西湖游船',
  coverUrl: 'https://storage.example.com/resource/scenic/west-lake-boat.jpg',
  city: '杭州',
  isCharged: true,
  isChargedName: '收费',
  settleTypeCode: 'MONTHLY',
  settleTypeName: '月结',
  tags: [{ tagId: '9007199254741045', tagName: '亲子', tagColor: '#FF5722' }],
  seasons: [{ seasonCode: 'SPRING', seasonName: '春季' }],
  statusCode: 'ON_SALE',
  statusName: '在售',
  enabled: true,
  resourceAvailable: true,
  updateTime: '2026-11-22 09:12:47',
})
example(pageSchema(SupplierResourceInfoRespVO), {
  records: [RESOURCE_INFO],
  total: 1,
  page: 1,
  pageSize: 20,
})

// Data of the failures that carry some ---------------------------------------------------------

example(NearDuplicateConfirmation, {
  candidateCount: 1,
  candidates: [
    {
      supplierId: '9007199254741021',
      supplierNo: 'SP20261118100003',
      fullName: '杭州湖畔旅行社有限责任公司',
      status: 'ACTIVE',
      similarity: 0.92,
      reason: 'SAME_TRADE_NAME_AND_REGION',
      explanation: 'same trade name “湖畔” in the same region “杭州”',
    },
  ],
  duplicateConfirmToken:
    '1795138500.9c4f1e2b7a0d83c65e1f4a9b2d7c8e0f3a6b5c4d9e8f7a1b2c3d4e5f6a7b8c9d',
  expiresAt: '2026-11-20T01:35:00.000Z',
})
example(MissingQualifications, {
  missing: [{ qualType: 'TRAVEL_AGENCY_PERMIT', typeCodes: ['OTHER'] }],
})
example(InternalErrorData, { requestId: '1b4e28ba-2fa1-41d2-883f-0016d3cca427' })
