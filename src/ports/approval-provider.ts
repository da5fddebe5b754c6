import type { ApprovalRow } from '../../sql/approval'

/** The standardized answer every provider gives; the applier never knows which one gave it. */
export interface ApprovalResult {
  approvalLogId: string
  decision: 'APPROVED' | 'REJECTED'
  schemaVersion: number
}

/**
 * Where approvals are decided. LOCAL_AUTO is the only adapter of this phase; an external
 * platform with callbacks is a later adapter of the same port.
 */
export interface ApprovalProvider {
  readonly name: 'LOCAL_AUTO'
  submit(approval: ApprovalRow): Promise<ApprovalResult>
}

/** Approves at once: no external number, template, approver or opinion is made up. */
export const localAutoProvider: ApprovalProvider = {
  name: 'LOCAL_AUTO',
  submit: async (approval) => ({
    approvalLogId: approval.approvalLogId,
    decision: 'APPROVED',
    schemaVersion: 1,
  }),
}
