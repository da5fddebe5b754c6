-- migrate:up

-- The qualification expiry list (GET /qualifications/expiring) scans a range of expiry dates of
-- live qualifications in (expiry_date, qualification_id) order and stops at the page end. Dated
-- live rows only: undated qualifications never expire and never appear there.
CREATE INDEX supplier_qualification_expiring ON supplier_qualification (expiry_date, qualification_id)
  WHERE deleted_at IS NULL AND expiry_date IS NOT NULL;
-- Superseded by the index above (same leading column, same live rows and more).
DROP INDEX supplier_qualification_expiry_live;

-- migrate:down

CREATE INDEX supplier_qualification_expiry_live ON supplier_qualification (expiry_date) WHERE deleted_at IS NULL;
DROP INDEX supplier_qualification_expiring;
