import { approvalRegistry } from './approval/handler'
import { statusChangeApproval } from './lifecycle/status-change'
import { accountChangeApproval, accountCreateApproval } from './account/handlers'
import { registrationApproval } from './supplier/registration-approval'

/** Every approval business type the applier knows: one handler each. */
export const APPROVAL_HANDLERS = approvalRegistry(
  registrationApproval,
  statusChangeApproval,
  accountCreateApproval,
  accountChangeApproval,
)
