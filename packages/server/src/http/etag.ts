/**
 * Whether an `If-None-Match` header names `etag` (RFC 9110 §13.1.2): `*` names any current
 * representation, a list is compared element by element, and the comparison is weak (`W/"x"`
 * matches `"x"`), as it is for GET.
 */
export function etagMatches(ifNoneMatch: string | null | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag.replace(/^W\//, '');
  });
}
