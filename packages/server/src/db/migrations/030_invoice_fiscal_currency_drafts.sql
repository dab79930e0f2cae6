-- Drafts made before 028 took their sale currency as the accounting one; they are issued later,
-- so they take what a draft made now takes: pesos for a CFDI, else the sale currency unless a
-- quote's fiscal_currency said otherwise.
UPDATE invoices i SET moneda_fiscal = CASE
    WHEN i.tipo = 'cfdi' THEN 'MXN'
    ELSE coalesce((SELECT q.fiscal_currency FROM quotes q WHERE q.id = i.cotizacion_id), i.moneda)
  END
WHERE i.estado = 'draft';
