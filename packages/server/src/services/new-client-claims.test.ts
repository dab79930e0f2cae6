import { describe, expect, it } from 'vitest';
import { NewClientClaims } from './new-client-claims.js';

const scope = { orgId: 'org-1', mode: 'test' };

describe('NewClientClaims', () => {
  it('gives one claim per client, by e-mail or else company name, whatever the case', () => {
    const claims = new NewClientClaims();
    const release = claims.claim(scope, { empresa: 'Acme', email: 'a@acme.example' });
    expect(release).toBeTypeOf('function');
    expect(claims.claim(scope, { empresa: 'Otra', email: 'A@ACME.example' })).toBeUndefined();
    // Another client, the same client in the other mode or organization: claims of their own.
    expect(claims.claim(scope, { empresa: 'Acme' })).toBeTypeOf('function');
    expect(claims.claim({ ...scope, mode: 'live' }, { empresa: 'Acme', email: 'a@acme.example' })).toBeTypeOf(
      'function',
    );
    expect(claims.claim({ ...scope, orgId: 'org-2' }, { empresa: 'X', email: 'a@acme.example' })).toBeTypeOf(
      'function',
    );
    release!();
    const next = claims.claim(scope, { empresa: 'Acme', email: 'a@acme.example' });
    expect(next).toBeTypeOf('function');
    // Ending a claim twice does not end the next one's.
    release!();
    expect(claims.claim(scope, { empresa: 'Acme', email: 'a@acme.example' })).toBeUndefined();
  });

  it('settles once the claim ends, and at once when there is none', async () => {
    const claims = new NewClientClaims();
    await claims.settled(scope, { empresa: 'Nadie' });
    const release = claims.claim(scope, { empresa: 'Acme' })!;
    let settled = false;
    const waiting = claims.settled(scope, { empresa: 'ACME' }).then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(settled).toBe(false);
    release();
    await waiting;
    expect(settled).toBe(true);
  });
});
