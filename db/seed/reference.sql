-- Reference data the service needs in every deployment (not demo data). Applied at every
-- start-up and idempotent: existing rows are left as operators changed them.
-- Rows here, not in a migration: operators may relabel or disable items, and a later start-up
-- must not fight them (ON CONFLICT DO NOTHING).

INSERT INTO dict_type (dict_type, dict_name) VALUES
  ('supplier_type', '供应商类型'),
  ('supplier_lifecycle_status', '供应商生命周期状态')
ON CONFLICT (dict_type) WHERE deleted_at IS NULL DO NOTHING;

INSERT INTO dict_data (dict_type, dict_label, dict_value, sort_order) VALUES
  ('supplier_type', '景区', 'SCENIC', 1),
  ('supplier_type', '餐饮', 'RESTAURANT', 2),
  ('supplier_type', '备品', 'SUPPLIES', 3),
  ('supplier_type', '游玩项目', 'ACTIVITY', 4),
  ('supplier_type', '酒店', 'HOTEL', 5),
  ('supplier_type', '服务', 'SERVICE', 6),
  ('supplier_type', '车队', 'FLEET', 7),
  ('supplier_type', '租赁', 'RENTAL', 8),
  ('supplier_type', '演艺', 'PERFORMANCE', 9),
  ('supplier_type', '保险', 'INSURANCE', 10),
  ('supplier_type', '渠道', 'CHANNEL', 11),
  ('supplier_type', '专业服务', 'PROFESSIONAL_SERVICE', 12),
  ('supplier_type', '物业', 'PROPERTY', 13),
  ('supplier_type', '票务', 'TICKET', 14),
  ('supplier_type', '其他', 'OTHER', 15),
  ('supplier_lifecycle_status', '草稿', 'DRAFT', 1),
  ('supplier_lifecycle_status', '审核中', 'VETTING', 2),
  ('supplier_lifecycle_status', '合作中', 'ACTIVE', 3),
  ('supplier_lifecycle_status', '暂停', 'SUSPENDED', 4),
  ('supplier_lifecycle_status', '冻结', 'FROZEN', 5),
  ('supplier_lifecycle_status', '黑名单', 'BLACKLIST', 6),
  ('supplier_lifecycle_status', '已归档', 'ARCHIVED', 7)
ON CONFLICT (dict_type, dict_value) WHERE deleted_at IS NULL DO NOTHING;

INSERT INTO resource_settle_type (code, name) VALUES
  ('PREPAID', '预付'),
  ('POSTPAID', '后付'),
  ('MONTHLY', '月结'),
  ('PER_ORDER', '单结')
ON CONFLICT DO NOTHING;

INSERT INTO resource_status (code, name) VALUES
  ('ON_SALE', '在售'),
  ('OFF_SALE', '已下架'),
  ('DRAFT', '草稿'),
  ('DISABLED', '已停用')
ON CONFLICT DO NOTHING;

INSERT INTO resource_season (season_code, season_name, sort_order) VALUES
  ('SPRING', '春季', 1),
  ('SUMMER', '夏季', 2),
  ('AUTUMN', '秋季', 3),
  ('WINTER', '冬季', 4),
  ('ALL_YEAR', '全年', 5)
ON CONFLICT DO NOTHING;
