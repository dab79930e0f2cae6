import type { Database } from '../db/database.js';
import { type ClientIdentity, clientKey, clientSqlValue } from '../repositories/clients.js';

/**
 * The creations of this process that are creating a client right now, by the client's identity
 * (e-mail, or else company name, as clients are found). Two creations naming the same new client at
 * once would each find no client and create one: the second waits for the first instead, then
 * reads again and finds the client the first created (or, if the first failed, creates it).
 * Returning clients never wait: only a creation that is about to create a client takes a claim.
 *
 * This holds within one process. Across processes, the statement that writes a client presumed new
 * checks it does not exist yet, which two statements running at the same instant both pass.
 */
export class NewClientClaims {
  readonly #pending = new Map<string, Promise<void>>();

  /**
   * Claims the creation of the client named by `identity`: a function that ends the claim (call it
   * once the creation committed or failed), or, when another creation holds the claim, undefined.
   */
  claim(scope: Scope, identity: ClientIdentity): (() => void) | undefined {
    const key = claimKey(scope, identity);
    if (this.#pending.has(key)) return undefined;
    let release!: () => void;
    const pending = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#pending.set(key, pending);
    return () => {
      // Once only: a second call must not end the claim someone else has taken since.
      if (this.#pending.get(key) === pending) this.#pending.delete(key);
      release();
    };
  }

  /** Resolves once no creation of this process is creating the client named by `identity`. */
  async settled(scope: Scope, identity: ClientIdentity): Promise<void> {
    const key = claimKey(scope, identity);
    for (let pending = this.#pending.get(key); pending; pending = this.#pending.get(key)) await pending;
  }
}

/** Clients are found by e-mail or company name without regard to case: claimed the same way. */
const claimKey = (scope: Scope, identity: ClientIdentity) =>
  `${scope.orgId}:${scope.mode}:${clientKey(identity)}:${clientSqlValue(identity).toLowerCase()}`;

type Scope = { orgId: string; mode: string };

const claims = new WeakMap<Database, NewClientClaims>();

/** The claims of a database's creations: one per connection pool, as its quote writer. */
export function newClientClaims(db: Database): NewClientClaims {
  let found = claims.get(db);
  if (!found) {
    found = new NewClientClaims();
    claims.set(db, found);
  }
  return found;
}
