/** Per-IP allowances of publishable keys (README, "Limits"). */
export const PUBLISHABLE_LIMITS = {
  preview: { name: 'preview', limit: 120, windowMs: 60_000 },
  draft: { name: 'draft', limit: 20, windowMs: 60_000 },
  create: { name: 'create', limit: 30, windowMs: 60_000 },
} as const;
