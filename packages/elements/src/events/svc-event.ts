import type { SvcChangeDetail } from './svc-change.js';
import type { SvcDraftItemDetail } from './svc-draft-item.js';
import type { SvcErrorDetail } from './svc-error.js';
import type { SvcQuoteCreatedDetail } from './svc-quote-created.js';
import type { SvcReadyDetail } from './svc-ready.js';

/** Every event the widget fires, by name. */
export interface SvcEventMap {
  'svc-ready': CustomEvent<SvcReadyDetail>;
  'svc-change': CustomEvent<SvcChangeDetail>;
  'svc-draft-item': CustomEvent<SvcDraftItemDetail>;
  'svc-quote-created': CustomEvent<SvcQuoteCreatedDetail>;
  'svc-error': CustomEvent<SvcErrorDetail>;
}

// They bubble and cross the shadow boundary, so the document and window see them too.
declare global {
  interface DocumentEventMap extends SvcEventMap {}
  interface WindowEventMap extends SvcEventMap {}
}

/** One of the widget's events: bubbling and composed, so the page can listen anywhere. */
export const svcEvent = <K extends keyof SvcEventMap>(
  name: K,
  detail: SvcEventMap[K]['detail'],
): CustomEvent<SvcEventMap[K]['detail']> => new CustomEvent(name, { detail, bubbles: true, composed: true });
