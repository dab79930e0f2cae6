import type { Lang } from './messages.js';

/** Strings of the public invoice page, its PDF and its e-mails. */
export interface InvoiceMessages {
  invoice: string;
  creditNote: string;
  from: string;
  billedTo: string;
  issued: string;
  due: string;
  states: Record<'open' | 'paid' | 'void' | 'uncollectible', string>;
  description: string;
  quantity: string;
  unitPrice: string;
  amount: string;
  subtotal: string;
  discount: string;
  tax: string;
  total: string;
  paid: string;
  credited: string;
  balance: string;
  payments: string;
  date: string;
  method: string;
  reference: string;
  methods: Record<string, string>;
  creditNotes: string;
  reason: string;
  folioFiscal: string;
  sandboxStamp: string;
  downloadPdf: string;
  downloadXml: string;
  notFound: string;
  notFoundText: string;
  emailSubject: (numero: string, org: string) => string;
  emailBody: (
    cliente: string,
    org: string,
    numero: string,
    total: string,
    due: string,
    link: string,
  ) => string;
  reminderSubject: (numero: string, org: string) => string;
  reminderBody: (cliente: string, numero: string, balance: string, due: string, link: string) => string;
}

export const INVOICE_MESSAGES: Record<Lang, InvoiceMessages> = {
  es: {
    invoice: 'Factura',
    creditNote: 'Nota de crédito',
    from: 'de',
    billedTo: 'Cliente',
    issued: 'Emitida',
    due: 'Vence',
    states: { open: 'Pendiente de pago', paid: 'Pagada', void: 'Anulada', uncollectible: 'Incobrable' },
    description: 'Descripción',
    quantity: 'Cantidad',
    unitPrice: 'Precio unitario',
    amount: 'Importe',
    subtotal: 'Subtotal',
    discount: 'Descuento',
    tax: 'Impuestos',
    total: 'Total',
    paid: 'Pagado',
    credited: 'Notas de crédito',
    balance: 'Saldo',
    payments: 'Pagos',
    date: 'Fecha',
    method: 'Forma de pago',
    reference: 'Referencia',
    methods: {
      transferencia: 'Transferencia',
      efectivo: 'Efectivo',
      tarjeta: 'Tarjeta',
      cheque: 'Cheque',
      otro: 'Otro',
    },
    creditNotes: 'Notas de crédito',
    reason: 'Motivo',
    folioFiscal: 'Folio fiscal (UUID)',
    sandboxStamp: 'Timbre de prueba, sin validez fiscal',
    downloadPdf: 'Descargar PDF',
    downloadXml: 'Descargar XML (CFDI)',
    notFound: 'Factura no encontrada',
    notFoundText: 'El enlace no es válido o la factura ya no está disponible.',
    emailSubject: (numero, org) => `Factura ${numero} de ${org}`,
    emailBody: (cliente, org, numero, total, due, link) =>
      `Hola ${cliente}:\n\n${org} te envía la factura ${numero} por ${total}, con vencimiento el ${due}.\n\nConsúltala y descárgala aquí: ${link}\n`,
    reminderSubject: (numero, org) => `Recordatorio: factura ${numero} de ${org} vencida`,
    reminderBody: (cliente, numero, balance, due, link) =>
      `Hola ${cliente}:\n\nLa factura ${numero} venció el ${due} y tiene un saldo de ${balance}.\n\nConsúltala aquí: ${link}\n`,
  },
  en: {
    invoice: 'Invoice',
    creditNote: 'Credit note',
    from: 'from',
    billedTo: 'Billed to',
    issued: 'Issued',
    due: 'Due',
    states: { open: 'Awaiting payment', paid: 'Paid', void: 'Void', uncollectible: 'Uncollectible' },
    description: 'Description',
    quantity: 'Quantity',
    unitPrice: 'Unit price',
    amount: 'Amount',
    subtotal: 'Subtotal',
    discount: 'Discount',
    tax: 'Tax',
    total: 'Total',
    paid: 'Paid',
    credited: 'Credit notes',
    balance: 'Balance due',
    payments: 'Payments',
    date: 'Date',
    method: 'Method',
    reference: 'Reference',
    methods: {
      transferencia: 'Bank transfer',
      efectivo: 'Cash',
      tarjeta: 'Card',
      cheque: 'Cheque',
      otro: 'Other',
    },
    creditNotes: 'Credit notes',
    reason: 'Reason',
    folioFiscal: 'Fiscal folio (UUID)',
    sandboxStamp: 'Test stamp, no fiscal validity',
    downloadPdf: 'Download PDF',
    downloadXml: 'Download XML (CFDI)',
    notFound: 'Invoice not found',
    notFoundText: 'The link is not valid or the invoice is no longer available.',
    emailSubject: (numero, org) => `Invoice ${numero} from ${org}`,
    emailBody: (cliente, org, numero, total, due, link) =>
      `Hello ${cliente},\n\n${org} sends you invoice ${numero} for ${total}, due on ${due}.\n\nView and download it here: ${link}\n`,
    reminderSubject: (numero, org) => `Reminder: invoice ${numero} from ${org} is overdue`,
    reminderBody: (cliente, numero, balance, due, link) =>
      `Hello ${cliente},\n\nInvoice ${numero} was due on ${due} and has a balance of ${balance}.\n\nView it here: ${link}\n`,
  },
  pt: {
    invoice: 'Fatura',
    creditNote: 'Nota de crédito',
    from: 'de',
    billedTo: 'Cliente',
    issued: 'Emitida',
    due: 'Vencimento',
    states: { open: 'Aguardando pagamento', paid: 'Paga', void: 'Anulada', uncollectible: 'Incobrável' },
    description: 'Descrição',
    quantity: 'Quantidade',
    unitPrice: 'Preço unitário',
    amount: 'Valor',
    subtotal: 'Subtotal',
    discount: 'Desconto',
    tax: 'Impostos',
    total: 'Total',
    paid: 'Pago',
    credited: 'Notas de crédito',
    balance: 'Saldo',
    payments: 'Pagamentos',
    date: 'Data',
    method: 'Forma de pagamento',
    reference: 'Referência',
    methods: {
      transferencia: 'Transferência',
      efectivo: 'Dinheiro',
      tarjeta: 'Cartão',
      cheque: 'Cheque',
      otro: 'Outro',
    },
    creditNotes: 'Notas de crédito',
    reason: 'Motivo',
    folioFiscal: 'Folio fiscal (UUID)',
    sandboxStamp: 'Carimbo de teste, sem validade fiscal',
    downloadPdf: 'Baixar PDF',
    downloadXml: 'Baixar XML (CFDI)',
    notFound: 'Fatura não encontrada',
    notFoundText: 'O link não é válido ou a fatura não está mais disponível.',
    emailSubject: (numero, org) => `Fatura ${numero} de ${org}`,
    emailBody: (cliente, org, numero, total, due, link) =>
      `Olá ${cliente},\n\n${org} envia a fatura ${numero} de ${total}, com vencimento em ${due}.\n\nVeja e baixe aqui: ${link}\n`,
    reminderSubject: (numero, org) => `Lembrete: a fatura ${numero} de ${org} está vencida`,
    reminderBody: (cliente, numero, balance, due, link) =>
      `Olá ${cliente},\n\nA fatura ${numero} venceu em ${due} e tem um saldo de ${balance}.\n\nVeja aqui: ${link}\n`,
  },
  fr: {
    invoice: 'Facture',
    creditNote: 'Avoir',
    from: 'de',
    billedTo: 'Client',
    issued: 'Émise le',
    due: 'Échéance',
    states: {
      open: 'En attente de paiement',
      paid: 'Payée',
      void: 'Annulée',
      uncollectible: 'Irrécouvrable',
    },
    description: 'Description',
    quantity: 'Quantité',
    unitPrice: 'Prix unitaire',
    amount: 'Montant',
    subtotal: 'Sous-total',
    discount: 'Remise',
    tax: 'Taxes',
    total: 'Total',
    paid: 'Payé',
    credited: 'Avoirs',
    balance: 'Reste à payer',
    payments: 'Paiements',
    date: 'Date',
    method: 'Moyen de paiement',
    reference: 'Référence',
    methods: {
      transferencia: 'Virement',
      efectivo: 'Espèces',
      tarjeta: 'Carte',
      cheque: 'Chèque',
      otro: 'Autre',
    },
    creditNotes: 'Avoirs',
    reason: 'Motif',
    folioFiscal: 'Folio fiscal (UUID)',
    sandboxStamp: 'Tampon de test, sans valeur fiscale',
    downloadPdf: 'Télécharger le PDF',
    downloadXml: 'Télécharger le XML (CFDI)',
    notFound: 'Facture introuvable',
    notFoundText: 'Le lien n’est pas valide ou la facture n’est plus disponible.',
    emailSubject: (numero, org) => `Facture ${numero} de ${org}`,
    emailBody: (cliente, org, numero, total, due, link) =>
      `Bonjour ${cliente},\n\n${org} vous envoie la facture ${numero} de ${total}, à régler le ${due}.\n\nConsultez-la et téléchargez-la ici : ${link}\n`,
    reminderSubject: (numero, org) => `Rappel : la facture ${numero} de ${org} est échue`,
    reminderBody: (cliente, numero, balance, due, link) =>
      `Bonjour ${cliente},\n\nLa facture ${numero} était due le ${due} et il reste ${balance} à payer.\n\nConsultez-la ici : ${link}\n`,
  },
  de: {
    invoice: 'Rechnung',
    creditNote: 'Gutschrift',
    from: 'von',
    billedTo: 'Kunde',
    issued: 'Ausgestellt',
    due: 'Fällig',
    states: { open: 'Zahlung offen', paid: 'Bezahlt', void: 'Storniert', uncollectible: 'Uneinbringlich' },
    description: 'Beschreibung',
    quantity: 'Menge',
    unitPrice: 'Einzelpreis',
    amount: 'Betrag',
    subtotal: 'Zwischensumme',
    discount: 'Rabatt',
    tax: 'Steuern',
    total: 'Gesamt',
    paid: 'Bezahlt',
    credited: 'Gutschriften',
    balance: 'Offener Betrag',
    payments: 'Zahlungen',
    date: 'Datum',
    method: 'Zahlungsart',
    reference: 'Referenz',
    methods: {
      transferencia: 'Überweisung',
      efectivo: 'Bar',
      tarjeta: 'Karte',
      cheque: 'Scheck',
      otro: 'Sonstige',
    },
    creditNotes: 'Gutschriften',
    reason: 'Grund',
    folioFiscal: 'Steuer-Folio (UUID)',
    sandboxStamp: 'Teststempel, steuerlich ungültig',
    downloadPdf: 'PDF herunterladen',
    downloadXml: 'XML herunterladen (CFDI)',
    notFound: 'Rechnung nicht gefunden',
    notFoundText: 'Der Link ist ungültig oder die Rechnung ist nicht mehr verfügbar.',
    emailSubject: (numero, org) => `Rechnung ${numero} von ${org}`,
    emailBody: (cliente, org, numero, total, due, link) =>
      `Hallo ${cliente},\n\n${org} sendet Ihnen die Rechnung ${numero} über ${total}, fällig am ${due}.\n\nAnsehen und herunterladen: ${link}\n`,
    reminderSubject: (numero, org) => `Erinnerung: Rechnung ${numero} von ${org} ist überfällig`,
    reminderBody: (cliente, numero, balance, due, link) =>
      `Hallo ${cliente},\n\nDie Rechnung ${numero} war am ${due} fällig; offen sind noch ${balance}.\n\nAnsehen: ${link}\n`,
  },
};
