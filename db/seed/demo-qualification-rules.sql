-- ---------------------------------------------------------------------------------------------
-- Qualification rules per supplier type, for the demo data (db/seed/demo.sql) and the benchmark
-- data set (npm run bench:seed): loaded with either, before it; idempotent.
-- ---------------------------------------------------------------------------------------------

INSERT INTO qualification_rule (type_code, qual_type, is_required, warning_days, sort_order)
SELECT v.type_code, v.qual_type, v.is_required, v.warning_days, v.sort_order
FROM (VALUES
  ('HOTEL', 'BUSINESS_LICENSE', true, 30, 1),
  ('HOTEL', 'PUBLIC_HEALTH_PERMIT', true, 30, 2),
  ('RESTAURANT', 'BUSINESS_LICENSE', true, 30, 1),
  ('RESTAURANT', 'FOOD_OPERATION_PERMIT', true, 30, 2),
  ('FLEET', 'BUSINESS_LICENSE', true, 30, 1),
  ('FLEET', 'ROAD_TRANSPORT_PERMIT', true, 30, 2),
  ('SCENIC', 'BUSINESS_LICENSE', true, 30, 1),
  ('SCENIC', 'TAX_REGISTRATION', false, 30, 2)
) AS v (type_code, qual_type, is_required, warning_days, sort_order)
WHERE NOT EXISTS (
  SELECT 1 FROM qualification_rule q
  WHERE q.type_code = v.type_code
    AND q.qual_type = v.qual_type
    AND q.deleted_at IS NULL
)
ON CONFLICT DO NOTHING;
