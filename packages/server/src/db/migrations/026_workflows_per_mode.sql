-- Workflows belong to a mode, like everything a key writes (design.md section 4: nothing written
-- with a test key is visible to a live key, and the reverse). A setup plan approved in test mode
-- added its workflows to live as well. Each existing workflow stays as the test one, and a copy
-- with its own id becomes the live one.
ALTER TABLE workflows ADD COLUMN mode text NOT NULL DEFAULT 'test' CHECK (mode IN ('test', 'live'));
INSERT INTO workflows (org_id, mode, nombre, objeto, pasos, estados, activo, created_at)
  SELECT org_id, 'live', nombre, objeto, pasos, estados, activo, created_at FROM workflows;
ALTER TABLE workflows ALTER COLUMN mode DROP DEFAULT;
ALTER TABLE workflows DROP CONSTRAINT workflows_org_id_nombre_key;
ALTER TABLE workflows ADD CONSTRAINT workflows_org_id_mode_nombre_key UNIQUE (org_id, mode, nombre);
