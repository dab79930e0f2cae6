-- GET /productos (and the widget configuration, when it is built) sorted the whole catalog for
-- each page. The list index gives the page in order. As for quotes and clients (migrations 008,
-- 010), it is the only index of products that begins with (org_id, mode), so a planner with stale
-- statistics cannot read the list through the SKU key and sort it; the SKU key begins with the
-- SKU (`ON CONFLICT (org_id, mode, sku)` names the same columns, in any order).
ALTER TABLE products DROP CONSTRAINT products_org_id_mode_sku_key;
ALTER TABLE products ADD CONSTRAINT products_sku_key UNIQUE (sku, org_id, mode);
CREATE INDEX products_list ON products (org_id, mode, created_at, sku);
