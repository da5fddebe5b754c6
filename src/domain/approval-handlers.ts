import type { ApprovalHandlers } from './approval/handler'
import { registrationApproval } from './supplier/registration-approval'

/** Every approval business type the applier knows: one handler each. */
export const APPROVAL_HANDLERS: ApprovalHandlers = {
  PROFILE_CREATE: registrationApproval,
}
