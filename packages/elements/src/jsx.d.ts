// JSX typings of <svc-quote-form> for React (19, whose JSX is React.JSX in the module 'react'),
// Vue (Volar), Svelte, and JSX runtimes that read the global JSX namespace.
// Add it once to the app's tsconfig, "include": ["src", "node_modules/@svc/elements/dist/jsx.d.ts"] (the
// package's exports do not list it). Events: listen with addEventListener on a ref
// (`svc-quote-created`, `svc-error`…); their details are typed in HTMLElementEventMap.
// Nothing here needs a framework's own types: without React installed, its part is inert.
import type { QuoteClient, QuoteLine, SvcQuoteForm } from './index.js';

type QuoteFormAttributes = {
  /** The merchant's publishable key (`pk_live_…` or `pk_test_…`). */
  'publishable-key': string;
  /** Base URL of the API; default: the script tag's origin + /api/v1, or with the package the page's. */
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

/** A ref to the element, as React passes it: an object or a callback (which may return a cleanup). */
type QuoteFormRef =
  | { current: SvcQuoteForm | null }
  // biome-ignore lint/suspicious/noConfusingVoidType: as React's RefCallback, whose callback may return nothing or a cleanup
  | ((element: SvcQuoteForm | null) => void | (() => void))
  | null;

// React 19: react/jsx-runtime reads React.JSX only, not the global namespace below.
declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'svc-quote-form': Omit<QuoteFormAttributes, 'style'> & {
        /** React sets styles from an object only (a string throws). */
        style?: Record<string, string | number>;
        ref?: QuoteFormRef;
        key?: string | number | bigint | null;
        children?: never;
        className?: string;
      };
    }
  }
}

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
