/** Languages the service writes to clients in. */
export const LANGS = ['es', 'en', 'pt', 'fr', 'de'] as const;
export type Lang = (typeof LANGS)[number];

/** Texts the service writes to a merchant's clients: the public quote page and the e-mail. */
export interface Messages {
  quote: string;
  from: string;
  validUntil: string;
  terms: string;
  description: string;
  quantity: string;
  unitPrice: string;
  amount: string;
  subtotal: string;
  discount: string;
  tax: string;
  total: string;
  approve: string;
  reject: string;
  approved: string;
  rejected: string;
  expired: string;
  paid: string;
  decided: string;
  notFound: string;
  notFoundText: string;
  /** A draft's link: the quote exists but the merchant has not sent it yet. */
  preparing: (folio: string) => string;
  preparingText: string;
  downloadPdf: string;
  emailSubject: (folio: string, merchant: string) => string;
  emailBody: (client: string, merchant: string, folio: string, total: string, link: string) => string;
}

export const MESSAGES: Record<Lang, Messages> = {
  es: {
    quote: 'Cotización',
    from: 'de',
    validUntil: 'Válida hasta',
    terms: 'Condiciones de pago',
    description: 'Descripción',
    quantity: 'Cantidad',
    unitPrice: 'Precio unitario',
    amount: 'Importe',
    subtotal: 'Subtotal',
    discount: 'Descuento',
    tax: 'Impuestos',
    total: 'Total',
    approve: 'Aprobar cotización',
    reject: 'Rechazar',
    approved: 'Aprobaste esta cotización. ¡Gracias!',
    rejected: 'Rechazaste esta cotización.',
    expired: 'Esta cotización venció.',
    paid: 'Esta cotización está pagada.',
    decided: 'Esta cotización ya no admite cambios.',
    notFound: 'Cotización no encontrada',
    notFoundText: 'El enlace no es válido o la cotización ya no está disponible.',
    preparing: (folio) => `La cotización ${folio} se está preparando`,
    preparingText: 'Te llegará por correo en cuanto esté lista; este enlace la mostrará entonces.',
    downloadPdf: 'Descargar PDF',
    emailSubject: (folio, merchant) => `Cotización ${folio} de ${merchant}`,
    emailBody: (client, merchant, folio, total, link) =>
      `Hola ${client}:\n\n${merchant} te envía la cotización ${folio} por ${total}.\n\nConsúltala y apruébala aquí:\n${link}\n`,
  },
  en: {
    quote: 'Quote',
    from: 'from',
    validUntil: 'Valid until',
    terms: 'Payment terms',
    description: 'Description',
    quantity: 'Quantity',
    unitPrice: 'Unit price',
    amount: 'Amount',
    subtotal: 'Subtotal',
    discount: 'Discount',
    tax: 'Tax',
    total: 'Total',
    approve: 'Approve quote',
    reject: 'Reject',
    approved: 'You approved this quote. Thank you!',
    rejected: 'You rejected this quote.',
    expired: 'This quote has expired.',
    paid: 'This quote has been paid.',
    decided: 'This quote can no longer be changed.',
    notFound: 'Quote not found',
    notFoundText: 'The link is not valid or the quote is no longer available.',
    preparing: (folio) => `Quote ${folio} is being prepared`,
    preparingText: 'It will reach you by e-mail as soon as it is ready; this link will show it then.',
    downloadPdf: 'Download PDF',
    emailSubject: (folio, merchant) => `Quote ${folio} from ${merchant}`,
    emailBody: (client, merchant, folio, total, link) =>
      `Hello ${client},\n\n${merchant} sent you quote ${folio} for ${total}.\n\nReview and approve it here:\n${link}\n`,
  },
  pt: {
    quote: 'Orçamento',
    from: 'de',
    validUntil: 'Válido até',
    terms: 'Condições de pagamento',
    description: 'Descrição',
    quantity: 'Quantidade',
    unitPrice: 'Preço unitário',
    amount: 'Valor',
    subtotal: 'Subtotal',
    discount: 'Desconto',
    tax: 'Impostos',
    total: 'Total',
    approve: 'Aprovar orçamento',
    reject: 'Recusar',
    approved: 'Você aprovou este orçamento. Obrigado!',
    rejected: 'Você recusou este orçamento.',
    expired: 'Este orçamento expirou.',
    paid: 'Este orçamento foi pago.',
    decided: 'Este orçamento não pode mais ser alterado.',
    notFound: 'Orçamento não encontrado',
    notFoundText: 'O link não é válido ou o orçamento não está mais disponível.',
    preparing: (folio) => `O orçamento ${folio} está sendo preparado`,
    preparingText: 'Ele chegará por e-mail assim que estiver pronto; este link o mostrará então.',
    downloadPdf: 'Baixar PDF',
    emailSubject: (folio, merchant) => `Orçamento ${folio} de ${merchant}`,
    emailBody: (client, merchant, folio, total, link) =>
      `Olá ${client},\n\n${merchant} enviou o orçamento ${folio} no valor de ${total}.\n\nVeja e aprove aqui:\n${link}\n`,
  },
  fr: {
    quote: 'Devis',
    from: 'de',
    validUntil: 'Valable jusqu’au',
    terms: 'Conditions de paiement',
    description: 'Description',
    quantity: 'Quantité',
    unitPrice: 'Prix unitaire',
    amount: 'Montant',
    subtotal: 'Sous-total',
    discount: 'Remise',
    tax: 'Taxes',
    total: 'Total',
    approve: 'Accepter le devis',
    reject: 'Refuser',
    approved: 'Vous avez accepté ce devis. Merci !',
    rejected: 'Vous avez refusé ce devis.',
    expired: 'Ce devis a expiré.',
    paid: 'Ce devis est payé.',
    decided: 'Ce devis ne peut plus être modifié.',
    notFound: 'Devis introuvable',
    notFoundText: 'Le lien n’est pas valide ou le devis n’est plus disponible.',
    preparing: (folio) => `Le devis ${folio} est en préparation`,
    preparingText: "Il vous parviendra par e-mail dès qu'il sera prêt ; ce lien l'affichera alors.",
    downloadPdf: 'Télécharger le PDF',
    emailSubject: (folio, merchant) => `Devis ${folio} de ${merchant}`,
    emailBody: (client, merchant, folio, total, link) =>
      `Bonjour ${client},\n\n${merchant} vous a envoyé le devis ${folio} d'un montant de ${total}.\n\nConsultez-le et acceptez-le ici :\n${link}\n`,
  },
  de: {
    quote: 'Angebot',
    from: 'von',
    validUntil: 'Gültig bis',
    terms: 'Zahlungsbedingungen',
    description: 'Beschreibung',
    quantity: 'Menge',
    unitPrice: 'Einzelpreis',
    amount: 'Betrag',
    subtotal: 'Zwischensumme',
    discount: 'Rabatt',
    tax: 'Steuern',
    total: 'Gesamt',
    approve: 'Angebot annehmen',
    reject: 'Ablehnen',
    approved: 'Sie haben dieses Angebot angenommen. Vielen Dank!',
    rejected: 'Sie haben dieses Angebot abgelehnt.',
    expired: 'Dieses Angebot ist abgelaufen.',
    paid: 'Dieses Angebot ist bezahlt.',
    decided: 'Dieses Angebot kann nicht mehr geändert werden.',
    notFound: 'Angebot nicht gefunden',
    notFoundText: 'Der Link ist ungültig oder das Angebot ist nicht mehr verfügbar.',
    preparing: (folio) => `Das Angebot ${folio} wird vorbereitet`,
    preparingText: 'Es kommt per E-Mail, sobald es fertig ist; dieser Link zeigt es dann.',
    downloadPdf: 'PDF herunterladen',
    emailSubject: (folio, merchant) => `Angebot ${folio} von ${merchant}`,
    emailBody: (client, merchant, folio, total, link) =>
      `Guten Tag ${client},\n\n${merchant} hat Ihnen das Angebot ${folio} über ${total} gesendet.\n\nHier ansehen und annehmen:\n${link}\n`,
  },
};

/**
 * A label and its colon, as each language writes it: French puts a non-breaking space before the
 * colon ("Valable jusqu’au : 11 décembre"), the others none.
 */
export const withColon = (lang: Lang, label: string) => `${label}${lang === 'fr' ? '\u00a0' : ''}:`;

/** The language for `value` (a tag like `pt-BR` or a header like `Accept-Language`), or undefined. */
export function pickLang(value: string | undefined | null): Lang | undefined {
  if (!value) return undefined;
  for (const part of value.split(',')) {
    const tag = part.trim().slice(0, 2).toLowerCase();
    if ((LANGS as readonly string[]).includes(tag)) return tag as Lang;
  }
  return undefined;
}

const COUNTRY_LANG: Record<string, Lang> = {
  US: 'en',
  GB: 'en',
  CA: 'en',
  BR: 'pt',
  PT: 'pt',
  FR: 'fr',
  BE: 'fr',
  DE: 'de',
  AT: 'de',
  CH: 'de',
};

/** The usual language of a country, Spanish for the rest of our markets. */
export const countryLang = (country: string | null | undefined): Lang | undefined =>
  country
    ? (COUNTRY_LANG[country.toUpperCase()] ??
      (['MX', 'ES', 'AR', 'CO', 'CL', 'PE'].includes(country.toUpperCase()) ? 'es' : undefined))
    : undefined;
