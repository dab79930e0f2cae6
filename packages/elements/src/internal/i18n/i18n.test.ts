import { ERROR_CODES } from '@svc/core';
import { assert } from 'chai';
import { errorMessageKey, errorTemplate, format, LOCALES, messagesFor, pickLocale } from './index.js';

// The codes a publishable key can meet (service-interface.md, POST /cotizaciones and /elements/*).
const WIDGET_CODES = [
  'invalid_request',
  'invalid_json',
  'invalid_key',
  'missing_key',
  'insufficient_scope',
  'origin_not_allowed',
  'rate_limited',
  'idempotency_in_progress',
  'idempotency_key_reused',
  'payload_too_large',
  'service_unavailable',
  'internal_error',
];

const shape = (value: unknown): unknown =>
  typeof value === 'object' && value
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]))
    : typeof value;

describe('i18n', () => {
  it('has the same messages in all five languages', () => {
    const reference = shape(messagesFor('en'));
    for (const locale of LOCALES) assert.deepEqual(shape(messagesFor(locale)), reference, locale);
  });

  it('gives every error code a message of its own language, the widget’s codes distinct from the generic one', () => {
    // Every code of @svc/core has a message, its own or another's, but these, which say what any
    // failure says (the generic message, as for a code from a newer service).
    const generic = [...ERROR_CODES, 'network'].filter((code) => errorMessageKey(code) === undefined);
    assert.deepEqual(generic, [
      'invalid_json',
      'invalid_idempotency_key',
      'invalid_url',
      'invalid_client',
      'plan_limit_reached',
      'integration_limit_reached',
      'not_found',
      'method_not_allowed',
      'invalid_state',
    ]);
    assert.isUndefined(errorMessageKey('a_code_from_a_newer_service'));
    for (const locale of LOCALES) {
      const t = messagesFor(locale);
      for (const code of [...ERROR_CODES, 'network']) {
        assert.isNotEmpty(t.errors[errorMessageKey(code) ?? 'internal_error'], `${locale} ${code}`);
      }
      for (const code of WIDGET_CODES) assert.ok(errorTemplate(t, code), `${locale} ${code}`);
      assert.notEqual(errorTemplate(t, 'origin_not_allowed'), errorTemplate(t, 'internal_error'));
      assert.notEqual(errorTemplate(t, 'rate_limited'), errorTemplate(t, 'internal_error'));
      assert.notEqual(errorTemplate(t, 'network'), errorTemplate(t, 'service_unavailable'));
    }
  });

  it('names every coupon reason in every language', () => {
    for (const locale of LOCALES) {
      const reasons = messagesFor(locale).couponReasons;
      for (const reason of ['not_found', 'expired', 'inactive', 'exhausted', 'currency_mismatch'])
        assert.ok(reasons[reason], `${locale} ${reason}`);
    }
  });

  it('fills templates and picks plural forms by the language’s rules', () => {
    const en = messagesFor('en');
    assert.equal(format('en', en.drafted, { n: 1 }), 'Done: 1 line added.');
    assert.equal(format('en', en.drafted, { n: 0 }), 'Done: 0 lines added.');
    assert.equal(format('fr', messagesFor('fr').drafted, { n: 0 }), 'Terminé : 0 ligne ajoutée.');
    assert.equal(format('en', en.couponApplied, { code: 'X', amount: '$1' }), 'Coupon X applied: −$1');
    // The forms sit where they differ: `{Position bleibt|Positionen bleiben}`.
    assert.equal(
      format('de', messagesFor('de').draftStopped, { n: 1 }),
      'Gestoppt; 1 Position bleibt erhalten.',
    );
    assert.equal(
      format('de', messagesFor('de').draftStopped, { n: 3 }),
      'Gestoppt; 3 Positionen bleiben erhalten.',
    );
  });

  it('takes the first supported language, else Spanish', () => {
    assert.equal(pickLocale(undefined, 'pt-BR', 'en'), 'pt');
    assert.equal(pickLocale('it', null, 'DE-at'), 'de');
    assert.equal(pickLocale('ja'), 'es');
  });
});
