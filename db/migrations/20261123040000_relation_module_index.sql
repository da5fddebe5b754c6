-- migrate:up

-- The resource-information page filtered by module: the valid relations of one supplier and one
-- module in page order, straight from the index (the unfiltered page uses
-- supplier_resource_relation_supplier).
CREATE INDEX supplier_resource_relation_supplier_module
  ON supplier_resource_relation (supplier_id, resource_module, update_time DESC, relation_id DESC)
  WHERE deleted_at IS NULL;

-- migrate:down

DROP INDEX supplier_resource_relation_supplier_module;
