// Writes custom-elements.json (schema 2.0) from the component's documented public interface and
// records the SRI hash of the script-tag bundle in dist/svc-elements.sri.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

const bundle = readFileSync('dist/svc-elements.js');
const sri = `sha384-${createHash('sha384').update(bundle).digest('base64')}`;
writeFileSync('dist/svc-elements.sri', `${sri}\n`);

const source = readFileSync('src/quote-form/quote-form.component.ts', 'utf8');
const doc = /\/\*\*([\s\S]*?)\*\/\s*export class SvcQuoteForm/.exec(source)?.[1] ?? '';
const tags = (tag) =>
  [...doc.matchAll(new RegExp(`@${tag} (\\S+) - (.+)`, 'g'))].map((m) => ({
    name: m[1],
    description: m[2].trim(),
  }));
const attribute = (name, field, type, description, byDefault) => ({
  name,
  fieldName: field,
  type: { text: type },
  description,
  ...(byDefault ? { default: byDefault } : {}),
});
/** The property an attribute reflects, as a member of the class. */
const reflected = ({ name, fieldName, type, description, default: byDefault }) => ({
  kind: 'field',
  name: fieldName,
  type,
  description,
  attribute: name,
  ...(byDefault ? { default: byDefault } : {}),
});
/** Each event's detail type, as the package exports it. */
const EVENT_TYPES = {
  'svc-ready': 'CustomEvent<SvcReadyDetail>',
  'svc-change': 'CustomEvent<SvcChangeDetail>',
  'svc-draft-item': 'CustomEvent<SvcDraftItemDetail>',
  'svc-quote-created': 'CustomEvent<SvcQuoteCreatedDetail>',
  'svc-error': 'CustomEvent<SvcErrorDetail>',
};
const field = (name, type, description, readonly = false) => ({
  kind: 'field',
  name,
  type: { text: type },
  description,
  ...(readonly ? { readonly: true } : {}),
});
const method = (name, returns, description, parameters) => ({
  kind: 'method',
  name,
  description,
  ...(parameters ? { parameters } : {}),
  return: { type: { text: returns } },
});
/** The attributes, each reflecting a property of the same name in camel case. */
const ATTRIBUTES = [
  attribute('publishable-key', 'publishableKey', 'string', 'Publishable key of the merchant (required).'),
  attribute('api-base', 'apiBase', 'string', 'Base URL of the API; default: origin of the script + /api/v1.'),
  attribute(
    'locale',
    'locale',
    "'es' | 'en' | 'pt' | 'fr' | 'de'",
    'Language; default: the merchant’s, then the browser’s.',
  ),
  attribute('currency', 'currency', 'string', 'ISO 4217 currency among the merchant’s currencies.'),
  attribute('theme', 'theme', "'light' | 'dark' | 'auto'", 'Colour theme.', "'light'"),
];
// The class as the package publishes it: bundled into dist/index.js (dist/define.js registers it).
const MODULE = 'dist/index.js';
const manifest = {
  schemaVersion: '2.0.0',
  modules: [
    {
      kind: 'javascript-module',
      path: MODULE,
      declarations: [
        {
          kind: 'class',
          name: 'SvcQuoteForm',
          tagName: 'svc-quote-form',
          customElement: true,
          summary: /@summary ([^@]+)/
            .exec(doc)?.[1]
            .replace(/\s*\*\s*/g, ' ')
            .trim(),
          superclass: { name: 'LitElement', package: 'lit' },
          attributes: ATTRIBUTES,
          members: [
            ...ATTRIBUTES.map(reflected),
            field('cliente', 'QuoteClient', 'Prefills the client fields.'),
            field('items', 'QuoteLine[]', 'Prefills the basket.'),
            field('lines', 'BasketLine[]', 'The lines of the basket as they are now.'),
            field('activeLocale', "'es' | 'en' | 'pt' | 'fr' | 'de'", 'The language in use.', true),
            field('activeCurrency', 'string', 'The document currency.', true),
            field(
              'totalsConfirmed',
              'boolean',
              'Whether the totals on screen are the server’s preview of the current basket.',
              true,
            ),
            method(
              'submit',
              'Promise<QuoteCreated>',
              'Sends the quote request (one Idempotency-Key per submission, retried on network errors, 5xx and 429); resolves with the creation result, rejects with an SvcApiError.',
            ),
            method('reset', 'void', 'Empties the form for a new quote; the configuration stays.'),
            method(
              'draft',
              'Promise<number>',
              'Streams drafted lines for the text into the basket; resolves with how many arrived.',
              [{ name: 'text', type: { text: 'string' } }],
            ),
            method('stopDraft', 'void', 'Stops a running draft; the lines already received stay.'),
          ],
          events: tags('event').map((event) => ({ ...event, type: { text: EVENT_TYPES[event.name] } })),
          cssParts: tags('csspart'),
          cssProperties: tags('cssproperty'),
        },
      ],
      exports: [
        { kind: 'js', name: 'SvcQuoteForm', declaration: { name: 'SvcQuoteForm', module: MODULE } },
        {
          kind: 'custom-element-definition',
          name: 'svc-quote-form',
          declaration: { name: 'SvcQuoteForm', module: MODULE },
        },
      ],
    },
  ],
};
writeFileSync('custom-elements.json', `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`custom-elements.json written; script SRI ${sri}`);
