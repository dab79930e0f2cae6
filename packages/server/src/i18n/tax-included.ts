import type { Lang } from './messages.js';

/** Said under a document's lines when its prices were entered tax included (`iva_incluido`). */
export const PRICES_INCLUDE_TAX: Record<Lang, string> = {
  es: 'Los precios incluyen impuestos; el subtotal es sin impuestos.',
  en: 'Prices include tax; the subtotal is before tax.',
  pt: 'Os preços incluem impostos; o subtotal é sem impostos.',
  fr: 'Les prix s’entendent TTC ; le sous-total est hors taxes.',
  de: 'Die Preise verstehen sich inklusive Steuern; die Zwischensumme ohne Steuern.',
};
