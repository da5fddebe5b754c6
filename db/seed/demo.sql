-- Demo data, loaded by the app on an empty demo database. Idempotent: every insert is guarded,
-- so running the file again adds nothing.
--
-- Needs the session setting app.demo_admin_id (the loader runs
-- SELECT set_config('app.demo_admin_id', $1, false) first).
-- Dictionaries and suppliers are NOT seeded here.

-- ---------------------------------------------------------------------------------------------
-- Demo administrator: role ADMIN and every permission
-- ---------------------------------------------------------------------------------------------

INSERT INTO admin_role (admin_id, role_code)
SELECT current_setting('app.demo_admin_id')::bigint, 'ADMIN'
WHERE NOT EXISTS (
  SELECT 1 FROM admin_role r
  WHERE r.admin_id = current_setting('app.demo_admin_id')::bigint
    AND r.role_code = 'ADMIN'
    AND r.deleted_at IS NULL
)
ON CONFLICT DO NOTHING;

INSERT INTO admin_permission (admin_id, permission_code)
SELECT current_setting('app.demo_admin_id')::bigint, v.permission_code
FROM (VALUES
  ('supplier:list'),
  ('supplier:view'),
  ('supplier:create'),
  ('supplier:update'),
  ('supplier:delete'),
  ('supplier:type:manage'),
  ('supplier:type:history'),
  ('supplier:approval:submit'),
  ('supplier:account:manage'),
  ('supplier:status:manage'),
  ('supplier:approval:opinion'),
  ('supplier:account:proof:read'),
  ('supplier:resource:view')
) AS v (permission_code)
WHERE NOT EXISTS (
  SELECT 1 FROM admin_permission p
  WHERE p.admin_id = current_setting('app.demo_admin_id')::bigint
    AND p.permission_code = v.permission_code
    AND p.deleted_at IS NULL
)
ON CONFLICT DO NOTHING;

-- ---------------------------------------------------------------------------------------------
-- Resources: 4 per table, the last one soft-deleted (shows as a missing resource).
-- Guarded by name, deleted rows included, so a rerun never re-creates a deleted demo row.
-- ---------------------------------------------------------------------------------------------

INSERT INTO resource_scenic (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
SELECT v.name, v.cover_url, v.city, v.is_charged::boolean, v.settle_type_code, v.status_code, v.enabled,
  v.deleted_at::timestamptz
FROM (VALUES
  ('西湖景区', 'https://storage.example.com/resources/scenic/xihu.jpg', '杭州', false, NULL, 'ON_SALE', true, NULL),
  ('灵隐寺', 'https://storage.example.com/resources/scenic/lingyin.jpg', '杭州', true, 'PREPAID', 'ON_SALE', true, NULL),
  ('黄山风景区', 'https://storage.example.com/resources/scenic/huangshan.jpg', '黄山', true, 'MONTHLY', 'OFF_SALE', true, NULL),
  ('虎丘景区', 'https://storage.example.com/resources/scenic/huqiu.jpg', '苏州', true, 'PER_ORDER', 'DISABLED', false, now() - interval '30 days')
) AS v (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
WHERE NOT EXISTS (SELECT 1 FROM resource_scenic r WHERE r.name = v.name);

INSERT INTO resource_restaurant (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
SELECT v.name, v.cover_url, v.city, v.is_charged::boolean, v.settle_type_code, v.status_code, v.enabled,
  v.deleted_at::timestamptz
FROM (VALUES
  ('楼外楼餐厅', 'https://storage.example.com/resources/restaurant/louwailou.jpg', '杭州', true, 'MONTHLY', 'ON_SALE', true, NULL),
  ('知味观', 'https://storage.example.com/resources/restaurant/zhiweiguan.jpg', '杭州', true, 'PER_ORDER', 'ON_SALE', true, NULL),
  ('松鹤楼', NULL, '苏州', true, 'POSTPAID', 'DRAFT', false, NULL),
  ('黄山老街徽菜馆', 'https://storage.example.com/resources/restaurant/huicai.jpg', '黄山', true, 'PREPAID', 'OFF_SALE', true, now() - interval '30 days')
) AS v (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
WHERE NOT EXISTS (SELECT 1 FROM resource_restaurant r WHERE r.name = v.name);

INSERT INTO resource_supplies (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
SELECT v.name, v.cover_url, v.city, v.is_charged::boolean, v.settle_type_code, v.status_code, v.enabled,
  v.deleted_at::timestamptz
FROM (VALUES
  ('矿泉水 550ml（24瓶/箱）', 'https://storage.example.com/resources/supplies/water.jpg', NULL, true, 'PREPAID', 'ON_SALE', true, NULL),
  ('一次性雨衣', 'https://storage.example.com/resources/supplies/raincoat.jpg', '杭州', false, NULL, 'ON_SALE', true, NULL),
  ('旅行U型颈枕', NULL, NULL, true, 'PER_ORDER', 'OFF_SALE', true, NULL),
  ('定制导游旗', 'https://storage.example.com/resources/supplies/flag.jpg', '杭州', true, 'MONTHLY', 'ON_SALE', true, now() - interval '30 days')
) AS v (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
WHERE NOT EXISTS (SELECT 1 FROM resource_supplies r WHERE r.name = v.name);

INSERT INTO resource_supplies_combo (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
SELECT v.name, v.cover_url, v.city, v.is_charged::boolean, v.settle_type_code, v.status_code, v.enabled,
  v.deleted_at::timestamptz
FROM (VALUES
  ('夏季防晒套装', 'https://storage.example.com/resources/supplies-combo/sunscreen.jpg', NULL, true, 'PREPAID', 'ON_SALE', true, NULL),
  ('亲子研学物料包', 'https://storage.example.com/resources/supplies-combo/study-kit.jpg', '杭州', true, 'PER_ORDER', 'ON_SALE', true, NULL),
  ('冬季保暖套装', NULL, NULL, true, 'MONTHLY', 'DRAFT', true, NULL),
  ('登山应急包', 'https://storage.example.com/resources/supplies-combo/hiking-kit.jpg', '黄山', true, 'PREPAID', 'OFF_SALE', false, now() - interval '30 days')
) AS v (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
WHERE NOT EXISTS (SELECT 1 FROM resource_supplies_combo r WHERE r.name = v.name);

INSERT INTO resource_activity (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
SELECT v.name, v.cover_url, v.city, v.is_charged::boolean, v.settle_type_code, v.status_code, v.enabled,
  v.deleted_at::timestamptz
FROM (VALUES
  ('西湖夜游画舫', 'https://storage.example.com/resources/activity/xihu-night-boat.jpg', '杭州', true, 'PER_ORDER', 'ON_SALE', true, NULL),
  ('龙井村采茶体验', 'https://storage.example.com/resources/activity/longjing-tea.jpg', '杭州', true, 'PREPAID', 'ON_SALE', true, NULL),
  ('苏州评弹欣赏', 'https://storage.example.com/resources/activity/pingtan.jpg', '苏州', false, NULL, 'OFF_SALE', false, NULL),
  ('黄山日出摄影团', 'https://storage.example.com/resources/activity/huangshan-sunrise.jpg', '黄山', true, 'MONTHLY', 'ON_SALE', true, now() - interval '30 days')
) AS v (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
WHERE NOT EXISTS (SELECT 1 FROM resource_activity r WHERE r.name = v.name);

INSERT INTO resource_hotel (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
SELECT v.name, v.cover_url, v.city, v.is_charged::boolean, v.settle_type_code, v.status_code, v.enabled,
  v.deleted_at::timestamptz
FROM (VALUES
  ('杭州君悦酒店', 'https://storage.example.com/resources/hotel/grand-hyatt-hangzhou.jpg', '杭州', true, 'MONTHLY', 'ON_SALE', true, NULL),
  ('西湖国宾馆', 'https://storage.example.com/resources/hotel/xihu-state-guesthouse.jpg', '杭州', true, 'PREPAID', 'ON_SALE', true, NULL),
  ('苏州平江府酒店', NULL, '苏州', true, 'POSTPAID', 'DRAFT', true, NULL),
  ('黄山西海饭店', 'https://storage.example.com/resources/hotel/xihai.jpg', '黄山', true, 'PER_ORDER', 'DISABLED', false, now() - interval '30 days')
) AS v (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
WHERE NOT EXISTS (SELECT 1 FROM resource_hotel r WHERE r.name = v.name);

INSERT INTO resource_service (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
SELECT v.name, v.cover_url, v.city, v.is_charged::boolean, v.settle_type_code, v.status_code, v.enabled,
  v.deleted_at::timestamptz
FROM (VALUES
  ('金牌导游讲解服务', 'https://storage.example.com/resources/service/guide.jpg', '杭州', true, 'PER_ORDER', 'ON_SALE', true, NULL),
  ('机场接送机服务', 'https://storage.example.com/resources/service/airport-transfer.jpg', '杭州', true, 'MONTHLY', 'ON_SALE', true, NULL),
  ('行李寄存服务', NULL, '苏州', NULL, NULL, 'OFF_SALE', true, NULL),
  ('旅拍跟拍服务', 'https://storage.example.com/resources/service/photography.jpg', '黄山', true, 'PREPAID', 'ON_SALE', true, now() - interval '30 days')
) AS v (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
WHERE NOT EXISTS (SELECT 1 FROM resource_service r WHERE r.name = v.name);

INSERT INTO resource_cost_item (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
SELECT v.name, v.cover_url, v.city, v.is_charged::boolean, v.settle_type_code, v.status_code, v.enabled,
  v.deleted_at::timestamptz
FROM (VALUES
  ('景区门票代收', NULL, NULL, true, 'PER_ORDER', 'ON_SALE', true, NULL),
  ('停车费', NULL, '杭州', true, 'POSTPAID', 'ON_SALE', true, NULL),
  ('高速过路费', NULL, NULL, NULL, 'MONTHLY', 'DRAFT', true, NULL),
  ('司机住宿补贴', NULL, NULL, false, NULL, 'DISABLED', false, now() - interval '30 days')
) AS v (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
WHERE NOT EXISTS (SELECT 1 FROM resource_cost_item r WHERE r.name = v.name);

INSERT INTO resource_staff (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
SELECT v.name, v.cover_url, v.city, v.is_charged::boolean, v.settle_type_code, v.status_code, v.enabled,
  v.deleted_at::timestamptz
FROM (VALUES
  ('导游 张伟', 'https://storage.example.com/resources/staff/zhangwei.jpg', '杭州', true, 'PER_ORDER', 'ON_SALE', true, NULL),
  ('司机 李强', 'https://storage.example.com/resources/staff/liqiang.jpg', '杭州', true, 'MONTHLY', 'ON_SALE', true, NULL),
  ('领队 王芳', NULL, '苏州', NULL, NULL, 'DRAFT', true, NULL),
  ('讲解员 陈静', 'https://storage.example.com/resources/staff/chenjing.jpg', '黄山', true, 'PER_ORDER', 'OFF_SALE', false, now() - interval '30 days')
) AS v (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
WHERE NOT EXISTS (SELECT 1 FROM resource_staff r WHERE r.name = v.name);

INSERT INTO fleet_vehicle (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
SELECT v.name, v.cover_url, v.city, v.is_charged::boolean, v.settle_type_code, v.status_code, v.enabled,
  v.deleted_at::timestamptz
FROM (VALUES
  ('大巴车 浙A12345', 'https://storage.example.com/resources/vehicle/bus-zhe-a12345.jpg', '杭州', true, 'MONTHLY', 'ON_SALE', true, NULL),
  ('中巴车 浙A67890', 'https://storage.example.com/resources/vehicle/minibus-zhe-a67890.jpg', '杭州', true, 'PER_ORDER', 'ON_SALE', true, NULL),
  ('商务车 苏E88888', NULL, '苏州', true, 'PREPAID', 'OFF_SALE', true, NULL),
  ('考斯特 皖J12345', 'https://storage.example.com/resources/vehicle/coaster-wan-j12345.jpg', '黄山', true, 'POSTPAID', 'DISABLED', false, now() - interval '30 days')
) AS v (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, deleted_at)
WHERE NOT EXISTS (SELECT 1 FROM fleet_vehicle r WHERE r.name = v.name);

-- ---------------------------------------------------------------------------------------------
-- Tags and their links
-- ---------------------------------------------------------------------------------------------

INSERT INTO resource_tag (tag_name, tag_color)
SELECT v.tag_name, v.tag_color
FROM (VALUES
  ('热门', '#FF5722'),
  ('亲子', '#4CAF50'),
  ('新品', '#2196F3'),
  ('精品', '#9C27B0')
) AS v (tag_name, tag_color)
WHERE NOT EXISTS (SELECT 1 FROM resource_tag t WHERE t.tag_name = v.tag_name AND t.deleted_at IS NULL);

-- Resource ids are identity values: links find them by (module, live name).
WITH live_resource AS (
  SELECT 'SCENIC'::text AS resource_module, min(id) AS resource_id, name FROM resource_scenic WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'RESTAURANT'::text AS resource_module, min(id) AS resource_id, name FROM resource_restaurant WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'SUPPLIES'::text AS resource_module, min(id) AS resource_id, name FROM resource_supplies WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'SUPPLIES_COMBO'::text AS resource_module, min(id) AS resource_id, name FROM resource_supplies_combo WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'ACTIVITY'::text AS resource_module, min(id) AS resource_id, name FROM resource_activity WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'HOTEL'::text AS resource_module, min(id) AS resource_id, name FROM resource_hotel WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'SERVICE'::text AS resource_module, min(id) AS resource_id, name FROM resource_service WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'COST_ITEM'::text AS resource_module, min(id) AS resource_id, name FROM resource_cost_item WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'STAFF'::text AS resource_module, min(id) AS resource_id, name FROM resource_staff WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'VEHICLE'::text AS resource_module, min(id) AS resource_id, name FROM fleet_vehicle WHERE deleted_at IS NULL GROUP BY name
)
INSERT INTO resource_tag_link (resource_module, resource_id, tag_id, sort_order)
SELECT v.resource_module, r.resource_id, t.tag_id, v.sort_order
FROM (VALUES
  ('SCENIC', '西湖景区', '热门', 0),
  ('SCENIC', '西湖景区', '亲子', 1),
  ('SCENIC', '黄山风景区', '热门', 0),
  ('RESTAURANT', '楼外楼餐厅', '热门', 0),
  ('RESTAURANT', '楼外楼餐厅', '精品', 1),
  ('SUPPLIES_COMBO', '亲子研学物料包', '亲子', 0),
  ('SUPPLIES_COMBO', '亲子研学物料包', '新品', 1),
  ('ACTIVITY', '龙井村采茶体验', '亲子', 0),
  ('ACTIVITY', '龙井村采茶体验', '新品', 1),
  ('ACTIVITY', '西湖夜游画舫', '热门', 0),
  ('HOTEL', '杭州君悦酒店', '热门', 0),
  ('HOTEL', '杭州君悦酒店', '精品', 1),
  ('SERVICE', '金牌导游讲解服务', '精品', 0),
  ('STAFF', '导游 张伟', '精品', 0),
  ('VEHICLE', '大巴车 浙A12345', '热门', 0),
  ('VEHICLE', '中巴车 浙A67890', '新品', 0)
) AS v (resource_module, resource_name, tag_name, sort_order)
JOIN live_resource r ON r.resource_module = v.resource_module AND r.name = v.resource_name
JOIN resource_tag t ON t.tag_name = v.tag_name AND t.deleted_at IS NULL
WHERE NOT EXISTS (
  SELECT 1 FROM resource_tag_link l
  WHERE l.resource_module = v.resource_module
    AND l.resource_id = r.resource_id
    AND l.tag_id = t.tag_id
    AND l.deleted_at IS NULL
);

-- ---------------------------------------------------------------------------------------------
-- Season links
-- ---------------------------------------------------------------------------------------------

WITH live_resource AS (
  SELECT 'SCENIC'::text AS resource_module, min(id) AS resource_id, name FROM resource_scenic WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'RESTAURANT'::text AS resource_module, min(id) AS resource_id, name FROM resource_restaurant WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'SUPPLIES'::text AS resource_module, min(id) AS resource_id, name FROM resource_supplies WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'SUPPLIES_COMBO'::text AS resource_module, min(id) AS resource_id, name FROM resource_supplies_combo WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'ACTIVITY'::text AS resource_module, min(id) AS resource_id, name FROM resource_activity WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'HOTEL'::text AS resource_module, min(id) AS resource_id, name FROM resource_hotel WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'SERVICE'::text AS resource_module, min(id) AS resource_id, name FROM resource_service WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'COST_ITEM'::text AS resource_module, min(id) AS resource_id, name FROM resource_cost_item WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'STAFF'::text AS resource_module, min(id) AS resource_id, name FROM resource_staff WHERE deleted_at IS NULL GROUP BY name
  UNION ALL
  SELECT 'VEHICLE'::text AS resource_module, min(id) AS resource_id, name FROM fleet_vehicle WHERE deleted_at IS NULL GROUP BY name
)
INSERT INTO resource_season_link (resource_module, resource_id, season_code, sort_order)
SELECT v.resource_module, r.resource_id, v.season_code, v.sort_order
FROM (VALUES
  ('SCENIC', '西湖景区', 'ALL_YEAR', 0),
  ('SCENIC', '灵隐寺', 'ALL_YEAR', 0),
  ('SCENIC', '黄山风景区', 'SPRING', 0),
  ('SCENIC', '黄山风景区', 'AUTUMN', 1),
  ('ACTIVITY', '龙井村采茶体验', 'SPRING', 0),
  ('ACTIVITY', '西湖夜游画舫', 'SUMMER', 0),
  ('ACTIVITY', '西湖夜游画舫', 'AUTUMN', 1),
  ('SUPPLIES_COMBO', '夏季防晒套装', 'SUMMER', 0),
  ('SUPPLIES_COMBO', '冬季保暖套装', 'WINTER', 0),
  ('HOTEL', '杭州君悦酒店', 'ALL_YEAR', 0),
  ('RESTAURANT', '楼外楼餐厅', 'ALL_YEAR', 0)
) AS v (resource_module, resource_name, season_code, sort_order)
JOIN live_resource r ON r.resource_module = v.resource_module AND r.name = v.resource_name
WHERE NOT EXISTS (
  SELECT 1 FROM resource_season_link l
  WHERE l.resource_module = v.resource_module
    AND l.resource_id = r.resource_id
    AND l.season_code = v.season_code
    AND l.deleted_at IS NULL
);
