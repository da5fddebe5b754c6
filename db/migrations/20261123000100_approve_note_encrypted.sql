-- migrate:up

-- approveNote is sensitive free text, like the approval opinion: from this release it is stored
-- encrypted (AES-256-GCM, the service's keys) in approve_note_enc. SQL cannot encrypt (the key is
-- the service's), so notes written before stay in the retired plaintext column until the service
-- moves them: at every start, before it serves, and on demand with `npm run approve-notes`
-- (a DBA may run it before or after the deploy; it is idempotent and works in small batches).
-- The plaintext column is dropped by a later release, by a migration that refuses to run while
-- any value is left in it.
ALTER TABLE supplier ADD COLUMN approve_note_enc text;
COMMENT ON COLUMN supplier.approve_note_enc IS 'approveNote: AES-256-GCM ciphertext v1.<keyId>.<iv>.<ct>; never plaintext';
COMMENT ON COLUMN supplier.approve_note IS 'retired plaintext approveNote: never written since 20261123000100; emptied into approve_note_enc by the service (npm run approve-notes); to be dropped';

-- migrate:down

-- The notes written since the up step exist only as ciphertext; dropping the column would lose
-- them. `npm run approve-notes -- decrypt` puts them back in plaintext for the older release.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM supplier WHERE approve_note_enc IS NOT NULL) THEN
    RAISE EXCEPTION 'supplier.approve_note_enc holds encrypted notes: run `npm run approve-notes -- decrypt` before this rollback';
  END IF;
END $$;
COMMENT ON COLUMN supplier.approve_note IS NULL;
ALTER TABLE supplier DROP COLUMN approve_note_enc;
