// JSX typings of <svc-quote-form> for React, Preact, Solid, Vue (Volar) and Svelte users.
// Add it once to the app's tsconfig, "include": ["src", "node_modules/@svc/elements/dist/jsx.d.ts"] (the
// package's exports do not list it). Events: listen with addEventListener on a ref
// (`svc-quote-created`, `svc-error`…); their details are typed in HTMLElementEventMap.
import type { QuoteClient, QuoteLine, SvcQuoteForm } from './index.js';

type QuoteFormAttributes = {
  /** The merchant's publishable key (`pk_live_…` or `pk_test_…`). */
  'publishable-key': string;
  /** Base URL of the API; default: the origin of the script + /api/v1. */
  'api-base'?: string;
  locale?: 'es' | 'en' | 'pt' | 'fr' | 'de';
  currency?: string;
  theme?: 'light' | 'dark' | 'auto';
  class?: string;
  id?: string;
  style?: string;
  /** Prefills the client fields (a property: frameworks that set properties pass it as is). */
  cliente?: QuoteClient;
  /** Prefills the basket (a property). */
  items?: QuoteLine[];
};

declare global {
  namespace JSX {
    interface IntrinsicElements {
      'svc-quote-form': QuoteFormAttributes & {
        ref?: unknown;
        key?: unknown;
        children?: never;
        className?: string;
      };
    }
  }
  namespace svelteHTML {
    interface IntrinsicElements {
      'svc-quote-form': QuoteFormAttributes;
    }
  }
}

declare module 'vue' {
  interface GlobalComponents {
    'svc-quote-form': QuoteFormAttributes;
  }
}

export type { SvcQuoteForm };
