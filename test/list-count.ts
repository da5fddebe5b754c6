import type postgres from 'postgres'

/** Keys whose kept total differs from a recount of the tables (none, when the totals are exact). */
export async function listCountDrift(sql: postgres.Sql) {
  const rows = await sql`
    WITH kept AS (
      SELECT list, status, type_code, sum(n)::int AS n FROM list_count
      GROUP BY list, status, type_code HAVING sum(n) <> 0
    ), counted AS (
      SELECT 'supplier' AS list, s.status, '' AS type_code, count(*)::int AS n
      FROM supplier s WHERE s.deleted_at IS NULL GROUP BY s.status
      UNION ALL
      SELECT 'supplier', s.status, t.type_code, count(*)::int
      FROM supplier_type t JOIN supplier s ON s.supplier_id = t.supplier_id AND s.deleted_at IS NULL
      WHERE t.deleted_at IS NULL GROUP BY s.status, t.type_code
      UNION ALL
      SELECT 'change_log', '', '', count(*)::int FROM change_log c WHERE c.supplier_id IS NOT NULL
      HAVING count(*) > 0
    )
    SELECT list, status, type_code AS "typeCode", kept.n AS kept, counted.n AS counted
    FROM kept FULL JOIN counted USING (list, status, type_code)
    WHERE kept.n IS DISTINCT FROM counted.n
  `
  return rows.map((r) => ({ ...r }))
}
