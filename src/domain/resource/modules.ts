import { fail } from '../../errors'
import { RESOURCE_MODULES, type ResourceModule } from '../../vocabulary'

/** Display names of the ten module codes, as the spec fixes them (not a platform dictionary). */
export const MODULE_NAMES: Record<ResourceModule, string> = {
  SCENIC: '景区管理',
  RESTAURANT: '餐厅管理',
  SUPPLIES: '备品管理',
  SUPPLIES_COMBO: '组合配品',
  ACTIVITY: '游玩项目管理',
  HOTEL: '酒店管理',
  SERVICE: '服务管理',
  COST_ITEM: '额外成本',
  STAFF: '服务人员管理',
  VEHICLE: '车队管理-车队管理',
}

/** The module served by the fleet service; the other nine live in this service's database. */
export const FLEET_MODULE = 'VEHICLE' satisfies ResourceModule

const isModule = (code: string): code is ResourceModule =>
  (RESOURCE_MODULES as readonly string[]).includes(code)

/** `code` as a module code, or 395034 "unsupported resource module" (exact, case-sensitive). */
export function resourceModule(code: string): ResourceModule {
  if (!isModule(code)) return fail('RESOURCE_MODULE_UNSUPPORTED')
  return code
}
