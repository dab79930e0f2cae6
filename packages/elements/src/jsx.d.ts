// JSX typings for React, Preact, Solid, Vue (volar) and Svelte users of <svc-quote-form>.
import type { SvcQuoteForm } from './quote-form/quote-form.component.js';

type QuoteFormAttributes = {
  'publishable-key': string;
  'api-base'?: string;
  locale?: 'es' | 'en' | 'pt' | 'fr' | 'de';
  currency?: string;
  theme?: 'light' | 'dark' | 'auto';
  class?: string;
  id?: string;
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
