import type { ApprovalHandlers } from './approval/handler'
import { statusChangeApproval } from './lifecycle/status-change'
import { accountChangeApproval, accountCreateApproval } from './account/handlers'
import { registrationApproval } from './supplier/registration-approval'

/** Every approval business type the applier knows: one handler each. */
export const APPROVAL_HANDLERS: ApprovalHandlers = {
  PROFILE_CREATE: registrationApproval,
  STATUS_CHANGE: statusChangeApproval,
  ACCOUNT_CREATE: accountCreateApproval,
  ACCOUNT_CHANGE: accountChangeApproval,
}
