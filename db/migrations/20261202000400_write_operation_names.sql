-- migrate:up

-- A write is named by its route's operationId, the one name its reference, permissions and kept
-- claims share. Kept Idempotency-Key answers (operation is "<name> <target>") and open
-- duplicate-submit claims written under the older names (the spec's SUP-ADM numbers and three
-- ad-hoc names) are renamed, so a client retrying with its key across the deploy still gets its
-- kept answer. A replica of the previous release still running during a rolling deploy writes
-- the older names: its claims are not seen by the new release (at worst a retry is answered
-- 395027 "key reused", never written twice), and expire with their window.
CREATE TEMPORARY TABLE write_operation_rename (old_name text PRIMARY KEY, new_name text NOT NULL)
  ON COMMIT DROP;
INSERT INTO write_operation_rename VALUES
  ('SUP-ADM-003', 'createSupplierDraft'),
  ('SUP-ADM-004', 'updateSupplier'),
  ('contacts-replace', 'replaceSupplierContacts'),
  ('SUP-ADM-007', 'submitSupplierRegistration'),
  ('SUP-ADM-010', 'archiveSupplier'),
  ('SUP-ADM-011', 'deleteSupplierDraft'),
  ('SUP-ADM-035', 'createSupplierAccounts'),
  ('SUP-ADM-036', 'changeSupplierAccount'),
  ('SUP-ADM-041', 'setDefaultSupplierAccount'),
  ('SUP-ADM-043', 'changeSupplierStatus'),
  ('SUP-ADM-049', 'setResourceRelation'),
  ('SUP-ADM-050', 'unbindResourceRelation'),
  ('qualification-rules-replace', 'replaceQualificationRules');

UPDATE idempotency_record r
SET operation = n.new_name || substr(r.operation, length(n.old_name) + 1)
FROM write_operation_rename n
WHERE r.operation = n.old_name OR r.operation LIKE n.old_name || ' %';

UPDATE submit_guard g SET operation = n.new_name
FROM write_operation_rename n
WHERE g.operation = n.old_name;

-- migrate:down

CREATE TEMPORARY TABLE write_operation_rename (old_name text PRIMARY KEY, new_name text NOT NULL)
  ON COMMIT DROP;
INSERT INTO write_operation_rename VALUES
  ('SUP-ADM-003', 'createSupplierDraft'),
  ('SUP-ADM-004', 'updateSupplier'),
  ('contacts-replace', 'replaceSupplierContacts'),
  ('SUP-ADM-007', 'submitSupplierRegistration'),
  ('SUP-ADM-010', 'archiveSupplier'),
  ('SUP-ADM-011', 'deleteSupplierDraft'),
  ('SUP-ADM-035', 'createSupplierAccounts'),
  ('SUP-ADM-036', 'changeSupplierAccount'),
  ('SUP-ADM-041', 'setDefaultSupplierAccount'),
  ('SUP-ADM-043', 'changeSupplierStatus'),
  ('SUP-ADM-049', 'setResourceRelation'),
  ('SUP-ADM-050', 'unbindResourceRelation'),
  ('qualification-rules-replace', 'replaceQualificationRules');

UPDATE idempotency_record r
SET operation = n.old_name || substr(r.operation, length(n.new_name) + 1)
FROM write_operation_rename n
WHERE r.operation = n.new_name OR r.operation LIKE n.new_name || ' %';

UPDATE submit_guard g SET operation = n.old_name
FROM write_operation_rename n
WHERE g.operation = n.new_name;
