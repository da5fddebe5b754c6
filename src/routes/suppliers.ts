import { Hono } from 'hono'
import { z } from 'zod'
import { authorize } from '../http/auth'
import { commandAccess } from '../domain/lifecycle/actions'
import { resultSchema } from '../http/envelope'
import type { AppEnv } from '../http/types'
import type { Deps } from '../domain/deps'
import { KiB } from '../http/body-shape'
import { validate } from '../http/validate'
import { idString } from '../schemas/id'
import { answerWrite } from '../http/write'
import { withdrawFailedApproval, withdrawPermissions } from '../domain/approval/withdraw'
import { FORM_ERRORS } from '../domain/supplier/form'
import { submitRegistration } from '../domain/supplier/registration'
import {
  createDraft,
  deleteDraft,
  replaceContacts,
  updateSupplierProfile,
} from '../domain/supplier/profile'
import {
  ApprovalCommandResult,
  ContactReplaceRequest,
  ContactView,
  SupplierDraftRequest,
  SupplierIdParam,
  SupplierSubmitRequest,
  SupplierUpdateRequest,
  SupplierWriteResult,
} from '../schemas/supplier'

const tags = ['supplier']

/** Supplier profile writes: draft create, update, contacts, submit, delete. */
export const supplierWriteRoutes = (deps: Deps) => {
  const { permissions, logger } = deps
  const app = new Hono<AppEnv>()

  app.post(
    '/items',
    authorize(permissions, logger, {
      ...commandAccess('createSupplierDraft'),
      summary: 'SUP-ADM-003: create a draft supplier',
      errors: [...FORM_ERRORS, 'TAX_NO_DUPLICATE', 'NEAR_DUPLICATE_CONFIRM_REQUIRED'],
      tags,
      // Whether a near-duplicate answer (395006) may name the candidates.
      advise: ['supplier:view'],
      response: resultSchema(SupplierWriteResult),
    }),
    // approveNote and remark: 16 MiB each (the spec's bound).
    validate('json', SupplierDraftRequest, { body: 'large' }),
    async (c) => {
      const body = c.req.valid('json')
      return answerWrite(c, deps, { target: '-', body }, (ctx) => createDraft(deps, ctx, body))
    },
  )

  app.put(
    '/items/:supplierId',
    authorize(permissions, logger, {
      ...commandAccess('updateSupplier'),
      // Whether a near-duplicate answer (395006) may name the candidates.
      advise: ['supplier:view'],
      summary: 'SUP-ADM-004: update a supplier (patch fields, snapshot collections)',
      errors: [
        ...FORM_ERRORS,
        'SUPPLIER_NOT_FOUND',
        'OPERATION_NOT_ALLOWED_IN_STATUS',
        'FIELD_NOT_EDITABLE',
        'TAX_NO_DUPLICATE',
        'NEAR_DUPLICATE_CONFIRM_REQUIRED',
        'NO_ACTUAL_CHANGE',
      ],
      tags,
      response: resultSchema(SupplierWriteResult),
    }),
    validate('param', SupplierIdParam),
    // A draft's update takes the draft's fields: approveNote and remark, 16 MiB each.
    validate('json', SupplierUpdateRequest, { body: 'large' }),
    async (c) => {
      const { supplierId } = c.req.valid('param')
      const body = c.req.valid('json')
      return answerWrite(c, deps, { target: supplierId, body }, (ctx) =>
        updateSupplierProfile(deps, ctx, supplierId, body),
      )
    },
  )

  app.put(
    '/items/:supplierId/contacts',
    authorize(permissions, logger, {
      ...commandAccess('replaceSupplierContacts'),
      summary: 'Replace the contacts of a supplier (complete snapshot)',
      errors: [
        'SUPPLIER_NOT_FOUND',
        'OPERATION_NOT_ALLOWED_IN_STATUS',
        'VERSION_STALE',
        'CHILD_NOT_OWNED',
        'CONCURRENT_MODIFICATION',
        'NO_ACTUAL_CHANGE',
      ],
      tags,
      response: resultSchema(z.array(ContactView)),
    }),
    validate('param', SupplierIdParam),
    // 100 contacts of name 500, phone 20, role 64 and remark 200 characters, 6 bytes each
    // escaped, with id, version and names: under 5 KB each; the reason: 3 KB.
    validate('json', ContactReplaceRequest, { body: 512 * KiB }),
    async (c) => {
      const { supplierId } = c.req.valid('param')
      const body = c.req.valid('json')
      return answerWrite(c, deps, { target: supplierId, body }, (ctx) =>
        replaceContacts(deps, ctx, supplierId, body),
      )
    },
  )

  app.post(
    '/items/:supplierId/submit',
    authorize(permissions, logger, {
      ...commandAccess('submitSupplierRegistration'),
      // Whether a near-duplicate answer (395006) may name the candidates.
      advise: ['supplier:view'],
      summary: 'SUP-ADM-007: submit the registration (LOCAL_AUTO approval)',
      errors: [
        ...FORM_ERRORS,
        'SUPPLIER_NOT_FOUND',
        'SUPPLIER_STATUS_TRANSITION_INVALID',
        'TAX_NO_DUPLICATE',
        'NEAR_DUPLICATE_CONFIRM_REQUIRED',
        'LICENSE_IMAGE_REQUIRED',
        'QUALIFICATIONS_MISSING',
      ],
      tags,
      response: resultSchema(ApprovalCommandResult),
    }),
    validate('param', SupplierIdParam),
    // The draft's fields: approveNote and remark, 16 MiB each.
    validate('json', SupplierSubmitRequest, { body: 'large' }),
    async (c) => {
      const { supplierId } = c.req.valid('param')
      const body = c.req.valid('json')
      return answerWrite(c, deps, { target: supplierId, body }, (ctx) =>
        submitRegistration(deps, ctx, supplierId, body),
      )
    },
  )

  app.delete(
    '/items/:supplierId',
    authorize(permissions, logger, {
      ...commandAccess('deleteSupplierDraft'),
      summary: 'SUP-ADM-011: delete a draft supplier (soft delete; DRAFT only)',
      errors: ['SUPPLIER_NOT_FOUND', 'OPERATION_NOT_ALLOWED_IN_STATUS', 'CONCURRENT_MODIFICATION'],
      tags,
      response: resultSchema(z.null()),
    }),
    validate('param', SupplierIdParam),
    async (c) => {
      const { supplierId } = c.req.valid('param')
      return answerWrite(c, deps, { target: supplierId, body: null }, (ctx) =>
        deleteDraft(deps, ctx, supplierId),
      )
    },
  )

  app.post(
    '/approvals/:approvalLogId/withdraw',
    authorize(permissions, logger, {
      summary:
        'Withdraw an approval whose application failed for good (evidence kept; a registration returns to DRAFT)',
      description: `Besides \`supplier:approval:submit\`, the caller needs the permissions of the command that opened the approval, whose pending change the withdrawal undoes: ${Object.values(
        deps.approvalHandlers,
      )
        .map(
          (handler) =>
            `${handler!.bizType}: ${handler!.permissions.map((p) => `\`${p}\``).join(' and ')}`,
        )
        .join('; ')}. Without them: 395002, nothing written.`,
      tags,
      ...commandAccess('withdrawFailedApproval'),
      // Which of the opening commands' permissions the caller holds; the verb requires its type's.
      advise: withdrawPermissions(deps.approvalHandlers),
      response: resultSchema(ApprovalCommandResult),
      errors: ['APPROVAL_NOT_FOUND', 'OPERATION_NOT_ALLOWED_IN_STATUS', 'CONCURRENT_MODIFICATION'],
    }),
    validate('param', z.strictObject({ approvalLogId: idString })),
    async (c) => {
      const { approvalLogId } = c.req.valid('param')
      return answerWrite(c, deps, { target: approvalLogId, body: null }, (ctx) =>
        withdrawFailedApproval(deps, ctx, approvalLogId, c.get('heldCodes')),
      )
    },
  )

  return app
}
