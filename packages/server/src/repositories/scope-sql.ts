/**
 * The condition that a row found by its own key (an id; a client's e-mail or name) belongs to an
 * organization and mode; placeholders as SQL. Written so that no index on (org_id, mode) can serve
 * it, which leaves the key's own index as the way in. With plain `org_id = … AND mode = …`, a
 * planner whose statistics predate a burst of rows (a fresh table, an imported catalog, a first
 * day live) estimates one row for the organization, finds its list index as good as the key's,
 * and reads every row of the organization to find one. Both columns are NOT NULL, so this is
 * their equality.
 */
export const inScope = (org: string, mode: string) =>
  `(org_id, mode) IS NOT DISTINCT FROM (${org}::uuid, ${mode}::text)`;
