-- An invoice's accounting currency and, when it differs from the sale currency, the exchange rate
-- it declares (units of moneda_fiscal per unit of moneda), fixed when it is issued. Invoices made
-- before keep their sale currency as the accounting one: they declared no rate.
ALTER TABLE invoices ADD COLUMN moneda_fiscal text;
UPDATE invoices SET moneda_fiscal = moneda;
ALTER TABLE invoices ALTER COLUMN moneda_fiscal SET NOT NULL;
ALTER TABLE invoices ADD COLUMN tipo_cambio numeric;
