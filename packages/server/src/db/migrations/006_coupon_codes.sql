-- Coupon codes are matched without regard to case (`bienvenida10` finds BIENVENIDA10): this index
-- serves that lookup, which otherwise reads every coupon of the table, and makes two codes that
-- differ only in case impossible, since a customer could not tell which one they typed.
CREATE UNIQUE INDEX coupons_code_any_case ON coupons (org_id, mode, upper(code));
