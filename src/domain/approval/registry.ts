import { approvalRegistry } from './handler'
import { statusChangeApproval } from '../lifecycle/status-change'
import { accountChangeApproval, accountCreateApproval } from '../account/handlers'
import { registrationApproval } from '../supplier/registration-approval'

/**
 * Every approval business type the applier knows: one handler each, declared beside the command
 * that opens it. The one file of the approval folder that knows the command folders.
 */
export const APPROVAL_HANDLERS = approvalRegistry(
  registrationApproval,
  statusChangeApproval,
  accountCreateApproval,
  accountChangeApproval,
)
