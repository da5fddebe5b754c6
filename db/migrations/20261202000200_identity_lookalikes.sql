-- migrate:up

-- Tax numbers and company names are compared in a form that look-alike characters cannot pass
-- (src/identity.ts): NFKC, letters and digits only, upper case, Cyrillic, Greek and other letters
-- drawn like Latin ones written as those; names also lose their invisible characters. A tax
-- number written with a zero-width space, a hyphen or a Cyrillic А is now the same number, and
-- C-02's blind index (supplier.tax_no_bidx) is computed from that form.
--
-- Rows written before are brought to it by the service's online backfill
-- (src/domain/supplier/tax-number.ts), under a lease, in batches, while it serves: it reads each
-- live supplier's number, and where the new form differs, writes the new form, its blind index
-- and its mask in one guarded statement (no version bump, no change log: the same number, not an
-- administrator's change). A row whose new index another live supplier already holds is left as
-- it is and counted: `npm run tax-no:collisions` lists such rows for an administrator, who decides;
-- nothing is merged or refused by the backfill. This table is where it got to.
CREATE TABLE backfill_progress (
  job text PRIMARY KEY,
  after_id bigint NOT NULL DEFAULT 0,
  finished_at timestamptz
);
COMMENT ON TABLE backfill_progress IS
  'How far an online backfill of existing rows got: the last supplier_id done; finished_at once all were';
INSERT INTO backfill_progress (job) VALUES ('tax-no-canonical');

-- The company-name keys change with the names' new form: keys are derived data, and the
-- name-key backfill (src/domain/supplier/name-keys.ts) keys every supplier again.
TRUNCATE supplier_name_key;

-- migrate:down

-- The rewritten numbers stay in their new form (the same numbers): the older release compares
-- them as they are. Its keys are made again by its own backfill.
TRUNCATE supplier_name_key;
DROP TABLE backfill_progress;
