-- migrate:up

-- Local resources and the embedded
-- fleet. The ten resource tables share one column shape so that a single query (UNION ALL)
-- can read any of them; tags and seasons attach to any resource through
-- (resource_module, resource_id) link tables.

-- ---------------------------------------------------------------------------------------------
-- Reference tables (seeded here: reference data, not demo data)
-- ---------------------------------------------------------------------------------------------

CREATE TABLE resource_settle_type (
  code text PRIMARY KEY,
  name text NOT NULL,
  CONSTRAINT resource_settle_type_code_chk CHECK (code IN ('PREPAID', 'POSTPAID', 'MONTHLY', 'PER_ORDER'))
);
COMMENT ON TABLE resource_settle_type IS 'Reference: settlement types of a resource (display names for settle_type_code).';


CREATE TABLE resource_status (
  code text PRIMARY KEY,
  name text NOT NULL,
  CONSTRAINT resource_status_code_chk CHECK (code IN ('ON_SALE', 'OFF_SALE', 'DRAFT', 'DISABLED'))
);
COMMENT ON TABLE resource_status IS 'Reference: sale status of a resource (display names for status_code).';


CREATE TABLE resource_season (
  season_code text PRIMARY KEY,
  season_name text NOT NULL,
  sort_order int NOT NULL,
  CONSTRAINT resource_season_code_chk CHECK (season_code IN ('SPRING', 'SUMMER', 'AUTUMN', 'WINTER', 'ALL_YEAR'))
);
COMMENT ON TABLE resource_season IS 'Reference: applicable seasons of a resource (display names and display order).';
COMMENT ON COLUMN resource_season.sort_order IS 'Display order, ascending.';


-- ---------------------------------------------------------------------------------------------
-- Resource tables: identical column shape
-- ---------------------------------------------------------------------------------------------

CREATE TABLE resource_scenic (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  name text NOT NULL,
  cover_url text,
  city text,
  is_charged boolean,
  settle_type_code text,
  status_code text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT resource_scenic_name_len_chk CHECK (char_length(name) BETWEEN 1 AND 500),
  CONSTRAINT resource_scenic_settle_type_code_chk CHECK (settle_type_code IN ('PREPAID', 'POSTPAID', 'MONTHLY', 'PER_ORDER')),
  CONSTRAINT resource_scenic_status_code_chk CHECK (status_code IN ('ON_SALE', 'OFF_SALE', 'DRAFT', 'DISABLED'))
);
CREATE INDEX resource_scenic_name_live_idx ON resource_scenic (name) WHERE deleted_at IS NULL;
COMMENT ON TABLE resource_scenic IS 'Local resource: scenic spots / attractions. Tags/seasons link with resource_module = ''SCENIC''.';
COMMENT ON COLUMN resource_scenic.cover_url IS 'Current cover image URL; NULL = no cover.';
COMMENT ON COLUMN resource_scenic.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';
COMMENT ON COLUMN resource_scenic.is_charged IS 'Whether the resource is charged; NULL = not applicable.';
COMMENT ON COLUMN resource_scenic.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';
COMMENT ON COLUMN resource_scenic.status_code IS 'Sale status, see resource_status.';
COMMENT ON COLUMN resource_scenic.enabled IS 'Enabled switch, independent of status_code.';
COMMENT ON COLUMN resource_scenic.deleted_at IS 'Soft delete time; NULL = live row.';

CREATE TABLE resource_restaurant (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  name text NOT NULL,
  cover_url text,
  city text,
  is_charged boolean,
  settle_type_code text,
  status_code text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT resource_restaurant_name_len_chk CHECK (char_length(name) BETWEEN 1 AND 500),
  CONSTRAINT resource_restaurant_settle_type_code_chk CHECK (settle_type_code IN ('PREPAID', 'POSTPAID', 'MONTHLY', 'PER_ORDER')),
  CONSTRAINT resource_restaurant_status_code_chk CHECK (status_code IN ('ON_SALE', 'OFF_SALE', 'DRAFT', 'DISABLED'))
);
CREATE INDEX resource_restaurant_name_live_idx ON resource_restaurant (name) WHERE deleted_at IS NULL;
COMMENT ON TABLE resource_restaurant IS 'Local resource: restaurants. Tags/seasons link with resource_module = ''RESTAURANT''.';
COMMENT ON COLUMN resource_restaurant.cover_url IS 'Current cover image URL; NULL = no cover.';
COMMENT ON COLUMN resource_restaurant.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';
COMMENT ON COLUMN resource_restaurant.is_charged IS 'Whether the resource is charged; NULL = not applicable.';
COMMENT ON COLUMN resource_restaurant.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';
COMMENT ON COLUMN resource_restaurant.status_code IS 'Sale status, see resource_status.';
COMMENT ON COLUMN resource_restaurant.enabled IS 'Enabled switch, independent of status_code.';
COMMENT ON COLUMN resource_restaurant.deleted_at IS 'Soft delete time; NULL = live row.';

CREATE TABLE resource_supplies (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  name text NOT NULL,
  cover_url text,
  city text,
  is_charged boolean,
  settle_type_code text,
  status_code text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT resource_supplies_name_len_chk CHECK (char_length(name) BETWEEN 1 AND 500),
  CONSTRAINT resource_supplies_settle_type_code_chk CHECK (settle_type_code IN ('PREPAID', 'POSTPAID', 'MONTHLY', 'PER_ORDER')),
  CONSTRAINT resource_supplies_status_code_chk CHECK (status_code IN ('ON_SALE', 'OFF_SALE', 'DRAFT', 'DISABLED'))
);
CREATE INDEX resource_supplies_name_live_idx ON resource_supplies (name) WHERE deleted_at IS NULL;
COMMENT ON TABLE resource_supplies IS 'Local resource: supplies / goods. Tags/seasons link with resource_module = ''SUPPLIES''.';
COMMENT ON COLUMN resource_supplies.cover_url IS 'Current cover image URL; NULL = no cover.';
COMMENT ON COLUMN resource_supplies.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';
COMMENT ON COLUMN resource_supplies.is_charged IS 'Whether the resource is charged; NULL = not applicable.';
COMMENT ON COLUMN resource_supplies.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';
COMMENT ON COLUMN resource_supplies.status_code IS 'Sale status, see resource_status.';
COMMENT ON COLUMN resource_supplies.enabled IS 'Enabled switch, independent of status_code.';
COMMENT ON COLUMN resource_supplies.deleted_at IS 'Soft delete time; NULL = live row.';

CREATE TABLE resource_supplies_combo (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  name text NOT NULL,
  cover_url text,
  city text,
  is_charged boolean,
  settle_type_code text,
  status_code text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT resource_supplies_combo_name_len_chk CHECK (char_length(name) BETWEEN 1 AND 500),
  CONSTRAINT resource_supplies_combo_settle_type_code_chk CHECK (settle_type_code IN ('PREPAID', 'POSTPAID', 'MONTHLY', 'PER_ORDER')),
  CONSTRAINT resource_supplies_combo_status_code_chk CHECK (status_code IN ('ON_SALE', 'OFF_SALE', 'DRAFT', 'DISABLED'))
);
CREATE INDEX resource_supplies_combo_name_live_idx ON resource_supplies_combo (name) WHERE deleted_at IS NULL;
COMMENT ON TABLE resource_supplies_combo IS 'Local resource: supply combos / bundles. Tags/seasons link with resource_module = ''SUPPLIES_COMBO''.';
COMMENT ON COLUMN resource_supplies_combo.cover_url IS 'Current cover image URL; NULL = no cover.';
COMMENT ON COLUMN resource_supplies_combo.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';
COMMENT ON COLUMN resource_supplies_combo.is_charged IS 'Whether the resource is charged; NULL = not applicable.';
COMMENT ON COLUMN resource_supplies_combo.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';
COMMENT ON COLUMN resource_supplies_combo.status_code IS 'Sale status, see resource_status.';
COMMENT ON COLUMN resource_supplies_combo.enabled IS 'Enabled switch, independent of status_code.';
COMMENT ON COLUMN resource_supplies_combo.deleted_at IS 'Soft delete time; NULL = live row.';

CREATE TABLE resource_activity (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  name text NOT NULL,
  cover_url text,
  city text,
  is_charged boolean,
  settle_type_code text,
  status_code text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT resource_activity_name_len_chk CHECK (char_length(name) BETWEEN 1 AND 500),
  CONSTRAINT resource_activity_settle_type_code_chk CHECK (settle_type_code IN ('PREPAID', 'POSTPAID', 'MONTHLY', 'PER_ORDER')),
  CONSTRAINT resource_activity_status_code_chk CHECK (status_code IN ('ON_SALE', 'OFF_SALE', 'DRAFT', 'DISABLED'))
);
CREATE INDEX resource_activity_name_live_idx ON resource_activity (name) WHERE deleted_at IS NULL;
COMMENT ON TABLE resource_activity IS 'Local resource: activities / experiences. Tags/seasons link with resource_module = ''ACTIVITY''.';
COMMENT ON COLUMN resource_activity.cover_url IS 'Current cover image URL; NULL = no cover.';
COMMENT ON COLUMN resource_activity.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';
COMMENT ON COLUMN resource_activity.is_charged IS 'Whether the resource is charged; NULL = not applicable.';
COMMENT ON COLUMN resource_activity.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';
COMMENT ON COLUMN resource_activity.status_code IS 'Sale status, see resource_status.';
COMMENT ON COLUMN resource_activity.enabled IS 'Enabled switch, independent of status_code.';
COMMENT ON COLUMN resource_activity.deleted_at IS 'Soft delete time; NULL = live row.';

CREATE TABLE resource_hotel (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  name text NOT NULL,
  cover_url text,
  city text,
  is_charged boolean,
  settle_type_code text,
  status_code text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT resource_hotel_name_len_chk CHECK (char_length(name) BETWEEN 1 AND 500),
  CONSTRAINT resource_hotel_settle_type_code_chk CHECK (settle_type_code IN ('PREPAID', 'POSTPAID', 'MONTHLY', 'PER_ORDER')),
  CONSTRAINT resource_hotel_status_code_chk CHECK (status_code IN ('ON_SALE', 'OFF_SALE', 'DRAFT', 'DISABLED'))
);
CREATE INDEX resource_hotel_name_live_idx ON resource_hotel (name) WHERE deleted_at IS NULL;
COMMENT ON TABLE resource_hotel IS 'Local resource: hotels. Tags/seasons link with resource_module = ''HOTEL''.';
COMMENT ON COLUMN resource_hotel.cover_url IS 'Current cover image URL; NULL = no cover.';
COMMENT ON COLUMN resource_hotel.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';
COMMENT ON COLUMN resource_hotel.is_charged IS 'Whether the resource is charged; NULL = not applicable.';
COMMENT ON COLUMN resource_hotel.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';
COMMENT ON COLUMN resource_hotel.status_code IS 'Sale status, see resource_status.';
COMMENT ON COLUMN resource_hotel.enabled IS 'Enabled switch, independent of status_code.';
COMMENT ON COLUMN resource_hotel.deleted_at IS 'Soft delete time; NULL = live row.';

CREATE TABLE resource_service (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  name text NOT NULL,
  cover_url text,
  city text,
  is_charged boolean,
  settle_type_code text,
  status_code text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT resource_service_name_len_chk CHECK (char_length(name) BETWEEN 1 AND 500),
  CONSTRAINT resource_service_settle_type_code_chk CHECK (settle_type_code IN ('PREPAID', 'POSTPAID', 'MONTHLY', 'PER_ORDER')),
  CONSTRAINT resource_service_status_code_chk CHECK (status_code IN ('ON_SALE', 'OFF_SALE', 'DRAFT', 'DISABLED'))
);
CREATE INDEX resource_service_name_live_idx ON resource_service (name) WHERE deleted_at IS NULL;
COMMENT ON TABLE resource_service IS 'Local resource: services. Tags/seasons link with resource_module = ''SERVICE''.';
COMMENT ON COLUMN resource_service.cover_url IS 'Current cover image URL; NULL = no cover.';
COMMENT ON COLUMN resource_service.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';
COMMENT ON COLUMN resource_service.is_charged IS 'Whether the resource is charged; NULL = not applicable.';
COMMENT ON COLUMN resource_service.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';
COMMENT ON COLUMN resource_service.status_code IS 'Sale status, see resource_status.';
COMMENT ON COLUMN resource_service.enabled IS 'Enabled switch, independent of status_code.';
COMMENT ON COLUMN resource_service.deleted_at IS 'Soft delete time; NULL = live row.';

CREATE TABLE resource_cost_item (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  name text NOT NULL,
  cover_url text,
  city text,
  is_charged boolean,
  settle_type_code text,
  status_code text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT resource_cost_item_name_len_chk CHECK (char_length(name) BETWEEN 1 AND 500),
  CONSTRAINT resource_cost_item_settle_type_code_chk CHECK (settle_type_code IN ('PREPAID', 'POSTPAID', 'MONTHLY', 'PER_ORDER')),
  CONSTRAINT resource_cost_item_status_code_chk CHECK (status_code IN ('ON_SALE', 'OFF_SALE', 'DRAFT', 'DISABLED'))
);
CREATE INDEX resource_cost_item_name_live_idx ON resource_cost_item (name) WHERE deleted_at IS NULL;
COMMENT ON TABLE resource_cost_item IS 'Local resource: cost items. Tags/seasons link with resource_module = ''COST_ITEM''.';
COMMENT ON COLUMN resource_cost_item.cover_url IS 'Current cover image URL; NULL = no cover.';
COMMENT ON COLUMN resource_cost_item.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';
COMMENT ON COLUMN resource_cost_item.is_charged IS 'Whether the resource is charged; NULL = not applicable.';
COMMENT ON COLUMN resource_cost_item.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';
COMMENT ON COLUMN resource_cost_item.status_code IS 'Sale status, see resource_status.';
COMMENT ON COLUMN resource_cost_item.enabled IS 'Enabled switch, independent of status_code.';
COMMENT ON COLUMN resource_cost_item.deleted_at IS 'Soft delete time; NULL = live row.';

CREATE TABLE resource_staff (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  name text NOT NULL,
  cover_url text,
  city text,
  is_charged boolean,
  settle_type_code text,
  status_code text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT resource_staff_name_len_chk CHECK (char_length(name) BETWEEN 1 AND 500),
  CONSTRAINT resource_staff_settle_type_code_chk CHECK (settle_type_code IN ('PREPAID', 'POSTPAID', 'MONTHLY', 'PER_ORDER')),
  CONSTRAINT resource_staff_status_code_chk CHECK (status_code IN ('ON_SALE', 'OFF_SALE', 'DRAFT', 'DISABLED'))
);
CREATE INDEX resource_staff_name_live_idx ON resource_staff (name) WHERE deleted_at IS NULL;
COMMENT ON TABLE resource_staff IS 'Local resource: staff such as guides, drivers, tour leaders. Tags/seasons link with resource_module = ''STAFF''.';
COMMENT ON COLUMN resource_staff.cover_url IS 'Current cover image URL; NULL = no cover.';
COMMENT ON COLUMN resource_staff.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';
COMMENT ON COLUMN resource_staff.is_charged IS 'Whether the resource is charged; NULL = not applicable.';
COMMENT ON COLUMN resource_staff.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';
COMMENT ON COLUMN resource_staff.status_code IS 'Sale status, see resource_status.';
COMMENT ON COLUMN resource_staff.enabled IS 'Enabled switch, independent of status_code.';
COMMENT ON COLUMN resource_staff.deleted_at IS 'Soft delete time; NULL = live row.';

CREATE TABLE fleet_vehicle (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  name text NOT NULL,
  cover_url text,
  city text,
  is_charged boolean,
  settle_type_code text,
  status_code text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT fleet_vehicle_name_len_chk CHECK (char_length(name) BETWEEN 1 AND 500),
  CONSTRAINT fleet_vehicle_settle_type_code_chk CHECK (settle_type_code IN ('PREPAID', 'POSTPAID', 'MONTHLY', 'PER_ORDER')),
  CONSTRAINT fleet_vehicle_status_code_chk CHECK (status_code IN ('ON_SALE', 'OFF_SALE', 'DRAFT', 'DISABLED'))
);
CREATE INDEX fleet_vehicle_name_live_idx ON fleet_vehicle (name) WHERE deleted_at IS NULL;
COMMENT ON TABLE fleet_vehicle IS 'Embedded fleet: vehicles; resource module VEHICLE. Tags/seasons link with resource_module = ''VEHICLE''.';
COMMENT ON COLUMN fleet_vehicle.cover_url IS 'Current cover image URL; NULL = no cover.';
COMMENT ON COLUMN fleet_vehicle.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';
COMMENT ON COLUMN fleet_vehicle.is_charged IS 'Whether the resource is charged; NULL = not applicable.';
COMMENT ON COLUMN fleet_vehicle.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';
COMMENT ON COLUMN fleet_vehicle.status_code IS 'Sale status, see resource_status.';
COMMENT ON COLUMN fleet_vehicle.enabled IS 'Enabled switch, independent of status_code.';
COMMENT ON COLUMN fleet_vehicle.deleted_at IS 'Soft delete time; NULL = live row.';

-- ---------------------------------------------------------------------------------------------
-- Tags
-- ---------------------------------------------------------------------------------------------

CREATE TABLE resource_tag (
  tag_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  tag_name text NOT NULL,
  tag_color text,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT resource_tag_name_len_chk CHECK (char_length(tag_name) BETWEEN 1 AND 64),
  CONSTRAINT resource_tag_color_chk CHECK (tag_color ~ '^#[0-9A-Fa-f]{6}$')
);
CREATE UNIQUE INDEX resource_tag_name_live_uq ON resource_tag (tag_name) WHERE deleted_at IS NULL;
COMMENT ON TABLE resource_tag IS 'Tags that can be attached to any resource through resource_tag_link.';
COMMENT ON COLUMN resource_tag.tag_color IS 'Display colour, hex #RRGGBB; NULL = default colour.';
COMMENT ON COLUMN resource_tag.deleted_at IS 'Soft delete time; NULL = live row. Links to a deleted tag are to be ignored.';

CREATE TABLE resource_tag_link (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  resource_module text NOT NULL,
  resource_id bigint NOT NULL,
  tag_id bigint NOT NULL,
  sort_order int NOT NULL DEFAULT 0,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT resource_tag_link_module_chk CHECK (resource_module IN (
        'SCENIC', 'RESTAURANT', 'SUPPLIES', 'SUPPLIES_COMBO', 'ACTIVITY',
        'HOTEL', 'SERVICE', 'COST_ITEM', 'STAFF', 'VEHICLE')),
  CONSTRAINT resource_tag_link_tag_fk FOREIGN KEY (tag_id) REFERENCES resource_tag (tag_id)
);
CREATE UNIQUE INDEX resource_tag_link_live_uq
  ON resource_tag_link (resource_module, resource_id, tag_id) WHERE deleted_at IS NULL;
CREATE INDEX resource_tag_link_resource_idx
  ON resource_tag_link (resource_module, resource_id) WHERE deleted_at IS NULL;
CREATE INDEX resource_tag_link_tag_idx ON resource_tag_link (tag_id);
COMMENT ON TABLE resource_tag_link IS 'Tag attached to a resource. (resource_module, resource_id) is polymorphic: no foreign key.';
COMMENT ON COLUMN resource_tag_link.resource_module IS 'Which table resource_id points into: SCENIC=resource_scenic, RESTAURANT=resource_restaurant, SUPPLIES=resource_supplies, SUPPLIES_COMBO=resource_supplies_combo, ACTIVITY=resource_activity, HOTEL=resource_hotel, SERVICE=resource_service, COST_ITEM=resource_cost_item, STAFF=resource_staff, VEHICLE=fleet_vehicle.';
COMMENT ON COLUMN resource_tag_link.resource_id IS 'id in the table named by resource_module (not enforced).';
COMMENT ON COLUMN resource_tag_link.sort_order IS 'Display order of the tags of one resource, ascending.';

-- ---------------------------------------------------------------------------------------------
-- Seasons
-- ---------------------------------------------------------------------------------------------

CREATE TABLE resource_season_link (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  resource_module text NOT NULL,
  resource_id bigint NOT NULL,
  season_code text NOT NULL,
  sort_order int NOT NULL DEFAULT 0,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT resource_season_link_module_chk CHECK (resource_module IN (
        'SCENIC', 'RESTAURANT', 'SUPPLIES', 'SUPPLIES_COMBO', 'ACTIVITY',
        'HOTEL', 'SERVICE', 'COST_ITEM', 'STAFF', 'VEHICLE')),
  CONSTRAINT resource_season_link_season_code_chk CHECK (season_code IN ('SPRING', 'SUMMER', 'AUTUMN', 'WINTER', 'ALL_YEAR')),
  CONSTRAINT resource_season_link_season_fk FOREIGN KEY (season_code) REFERENCES resource_season (season_code)
);
CREATE UNIQUE INDEX resource_season_link_live_uq
  ON resource_season_link (resource_module, resource_id, season_code) WHERE deleted_at IS NULL;
COMMENT ON TABLE resource_season_link IS 'Applicable season of a resource. (resource_module, resource_id) is polymorphic: no foreign key.';
COMMENT ON COLUMN resource_season_link.resource_module IS 'Which table resource_id points into; same codes as resource_tag_link.resource_module.';
COMMENT ON COLUMN resource_season_link.resource_id IS 'id in the table named by resource_module (not enforced).';
COMMENT ON COLUMN resource_season_link.sort_order IS 'Display order of the seasons of one resource, ascending (resource_season.sort_order is the canonical order).';

-- migrate:down

DROP TABLE resource_season_link;
DROP TABLE resource_tag_link;
DROP TABLE resource_tag;

DROP TABLE fleet_vehicle;
DROP TABLE resource_staff;
DROP TABLE resource_cost_item;
DROP TABLE resource_service;
DROP TABLE resource_hotel;
DROP TABLE resource_activity;
DROP TABLE resource_supplies_combo;
DROP TABLE resource_supplies;
DROP TABLE resource_restaurant;
DROP TABLE resource_scenic;
DROP TABLE resource_season;
DROP TABLE resource_status;
DROP TABLE resource_settle_type;
