import type { ApprovalHandlers } from './approval/handler'
import { accountChangeApproval, accountCreateApproval } from './account/handlers'
import { registrationApproval } from './supplier/registration-approval'

/** Every approval business type the applier knows: one handler each. */
export const APPROVAL_HANDLERS: ApprovalHandlers = {
  PROFILE_CREATE: registrationApproval,
  ACCOUNT_CREATE: accountCreateApproval,
  ACCOUNT_CHANGE: accountChangeApproval,
}
