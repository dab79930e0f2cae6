/** A webhook endpoint as stored. */
export interface EndpointRow {
  id: string;
  org_id: string;
  mode: 'test' | 'live';
  key_id: string;
  url: string;
  eventos: string[];
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  failure_streak: number;
  warned_at: Date | null;
  created_at: Date;
}

/** An endpoint as the API shows it: never the secret. */
export function endpointRecord(e: EndpointRow) {
  return {
    id: e.id,
    url: e.url,
    eventos: e.eventos,
    status: e.status,
    disabled_reason: e.disabled_reason,
    failure_streak: e.failure_streak,
    secret_rotation_ends_at: e.previous_secret_expires_at,
    created_at: e.created_at,
  };
}
