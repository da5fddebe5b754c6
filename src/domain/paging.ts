/** `PageResult<T>` of the spec: one page of a list read, as a domain verb returns it. */
export interface PageResult<T> {
  records: T[]
  total: number
  page: number
  pageSize: number
}

export const page = <T>(
  records: T[],
  total: number,
  page: number,
  pageSize: number,
): PageResult<T> => ({
  records,
  total,
  page,
  pageSize,
})
