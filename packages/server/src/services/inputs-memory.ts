import type { Database } from '../db/database.js';
import type { ClientIdentity, ClientRecord } from '../repositories/clients.js';
import { clientKey, clientSqlValue } from '../repositories/clients.js';
import type { CouponRow } from '../repositories/coupons.js';
import type { ProductRow } from '../repositories/products.js';
import type { QuoteInputs } from '../repositories/quote-inputs.js';

/** Entries each map of a memory holds before it starts over; enough for every busy catalog. */
export const MAX_REMEMBERED = 10_000;

/** What a creation reads before it prices, as {@link readQuoteInputs} takes it. */
export interface InputsRequest {
  client: ClientIdentity;
  productIds: string[];
  couponCode: string | undefined;
}

type Scope = { orgId: string; mode: string };

/**
 * The clients, products and coupons creations of quotes last read, kept so that the next creation
 * naming the same ones can be priced without reading them: its quote is then written in one
 * statement instead of two. Nothing here is trusted: the statement that writes such a quote checks
 * that the client and every product are still the rows remembered (by their `xmin`) and that the
 * coupon still has the values it was priced with, and leaves the quote out when anything changed;
 * the creation then reads afresh, which also refreshes what is remembered. So a change made by any
 * process shows at once, without telling the others.
 *
 * A client memory does not hold, named by e-mail or name, is presumed new
 * ({@link InputsMemory.recallPresumingNew}): the statement checks that no such client exists and
 * that the plan has room for it. An unknown product or coupon is never remembered, and such a
 * request always takes the reading path, which answers it.
 */
export class InputsMemory {
  readonly #clients = new Map<string, { record: ClientRecord; version: string }>();
  readonly #products = new Map<string, { row: ProductRow; version: string }>();
  readonly #coupons = new Map<string, CouponRow>();

  /** Keeps what was read for `request`; what it did not find is not kept. */
  remember(scope: Scope, request: InputsRequest, inputs: QuoteInputs): void {
    const prefix = scopePrefix(scope);
    if (inputs.client && inputs.versions.client !== null) {
      put(this.#clients, prefix + clientEntry(request.client), {
        record: inputs.client,
        version: inputs.versions.client,
      });
    }
    for (const [id, row] of inputs.products) {
      const version = inputs.versions.products.get(id);
      if (version !== undefined) put(this.#products, prefix + id, { row, version });
    }
    if (request.couponCode !== undefined && inputs.coupon) {
      put(this.#coupons, prefix + request.couponCode, inputs.coupon);
    }
  }

  /**
   * The inputs of `request` as last read, or undefined when anything it names is not remembered.
   * The client count is not known (null): a remembered client is never new.
   */
  recall(scope: Scope, request: InputsRequest): QuoteInputs | undefined {
    const prefix = scopePrefix(scope);
    const client = this.#clients.get(prefix + clientEntry(request.client));
    if (!client) return undefined;
    const catalog = this.#recallCatalog(prefix, request);
    if (!catalog) return undefined;
    return {
      client: client.record,
      clientCount: null,
      products: catalog.products,
      coupon: catalog.coupon,
      versions: { client: client.version, products: catalog.versions },
    };
  }

  /**
   * The inputs of `request` for a client named by e-mail or name that memory does not hold,
   * presumed new: its products and coupon as last read, no client and no client count. Undefined
   * when the request names its client by id, or anything else it names is not remembered. The
   * statement that writes the quote checks the presumption (`presumedNew` of a batched quote).
   */
  recallPresumingNew(scope: Scope, request: InputsRequest): QuoteInputs | undefined {
    if ('id' in request.client) return undefined;
    const prefix = scopePrefix(scope);
    if (this.#clients.has(prefix + clientEntry(request.client))) return undefined;
    const catalog = this.#recallCatalog(prefix, request);
    if (!catalog) return undefined;
    return {
      client: undefined,
      clientCount: null,
      products: catalog.products,
      coupon: catalog.coupon,
      versions: { client: null, products: catalog.versions },
    };
  }

  #recallCatalog(prefix: string, request: InputsRequest) {
    let coupon: CouponRow | undefined;
    if (request.couponCode !== undefined) {
      coupon = this.#coupons.get(prefix + request.couponCode);
      if (!coupon) return undefined;
    }
    const products = new Map<string, ProductRow>();
    const versions = new Map<string, string>();
    for (const id of request.productIds) {
      const product = this.#products.get(prefix + id);
      if (!product) return undefined;
      products.set(id, product.row);
      versions.set(id, product.version);
    }
    return { products, versions, coupon };
  }
}

const scopePrefix = (scope: Scope) => `${scope.orgId}:${scope.mode}:`;

// The value exactly as sent: the lookup ignores case by PostgreSQL's rules, which JavaScript's
// toLowerCase() does not always share, so two spellings are two entries.
const clientEntry = (identity: ClientIdentity) => `${clientKey(identity)}:${clientSqlValue(identity)}`;

function put<Value>(map: Map<string, Value>, key: string, value: Value): void {
  // Starting over is simpler than evicting one by one, and costs one read per entry in use.
  if (map.size >= MAX_REMEMBERED && !map.has(key)) map.clear();
  map.set(key, value);
}

const memories = new WeakMap<Database, InputsMemory>();

/** The inputs memory of a database: one per connection pool, shared by all its requests. */
export function inputsMemory(db: Database): InputsMemory {
  let memory = memories.get(db);
  if (!memory) {
    memory = new InputsMemory();
    memories.set(db, memory);
  }
  return memory;
}
