-- `coupons_code_any_case` (migration 006) already makes a code unique in any case, so it is
-- unique as typed too. The older key on (org_id, mode, code) only gave a planner with stale
-- statistics a second way to look a code up, one that reads every coupon of the organization.
ALTER TABLE coupons DROP CONSTRAINT coupons_org_id_mode_code_key;
