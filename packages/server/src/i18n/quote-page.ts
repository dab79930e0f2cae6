import type { Lang } from './messages.js';

/**
 * Strings of the client's side of the public quote page (design.md section 14), beside the
 * quote's own wording in `MESSAGES`: partial approval and acceptance, rejection, conversation and
 * counteroffers, the payment plan and promises, and what the page says back.
 */
export interface QuotePageMessages {
  language: string;
  decide: string;
  linesToApprove: string;
  linesHint: string;
  signerName: string;
  signerEmail: string;
  acceptanceNote: string;
  approveSelected: string;
  rejectTitle: string;
  rejectReason: string;
  declined: string;
  partiallyApproved: string;
  acceptedBy: (name: string, email: string, date: string) => string;
  rejectedBecause: string;
  conversation: string;
  noMessages: string;
  client: string;
  seller: string;
  about: string;
  wholeQuote: string;
  /** What a message is about when its line was replaced since (the seller resent new lines). */
  earlierLine: string;
  message: string;
  counteroffer: string;
  counterKind: string;
  noCounter: string;
  counterPrice: string;
  counterQuantity: string;
  counterTotal: string;
  counterValue: string;
  send: string;
  plan: string;
  installment: (n: number) => string;
  deposit: string;
  balanceDue: string;
  payBy: string;
  onApproval: string;
  /** The plan of a quote paid at once, by when: "on approval" or "30 days after approval". */
  singlePayment: (when: string) => string;
  /** A pay-by date before the approval that fixes it: so many days after it. */
  afterApproval: (days: number) => string;
  paid: string;
  balance: string;
  payments: string;
  promiseTitle: string;
  promiseDate: string;
  promiseAmount: string;
  promiseSubmit: string;
  promises: string;
  promiseState: Record<'pending' | 'kept' | 'broken', string>;
  done: Record<'approve' | 'reject' | 'comment' | 'promise', string>;
  errors: {
    csrf: string;
    rateLimited: string;
    notAllowed: string;
    /** Above the form's messages: the fields to correct, each message linked to its field. */
    summary: string;
    lineas: string;
    /** A ticked line that is not one of this quote's lines. */
    linesNotOnQuote: string;
    nombre: string;
    email: string;
    /** A rejection's reason that is not plain text of up to 2000 characters. */
    motivo: string;
    mensaje: string;
    propuesta: string;
    item_id: string;
    /** A message about a line that is not one of this quote's lines. */
    lineNotOnQuote: string;
    promiseDate: string;
    promiseAmount: string;
    promiseOverBalance: string;
    promiseDecimals: (decimals: number) => string;
    other: string;
  };
}

export const QUOTE_PAGE_MESSAGES: Record<Lang, QuotePageMessages> = {
  es: {
    language: 'Idioma',
    decide: 'Tu decisión',
    linesToApprove: 'Líneas que apruebas',
    linesHint: 'Desmarca las líneas que no quieres; el total se recalcula sobre las que apruebes.',
    signerName: 'Tu nombre',
    signerEmail: 'Tu correo electrónico',
    acceptanceNote:
      'Al aprobar aceptas electrónicamente esta cotización; guardamos tu nombre, tu correo, la fecha y tu dirección IP.',
    approveSelected: 'Aprobar las líneas marcadas',
    rejectTitle: 'Rechazar la cotización',
    rejectReason: 'Motivo (opcional)',
    declined: 'No aprobada',
    partiallyApproved: 'Aprobaste parte de esta cotización. ¡Gracias!',
    acceptedBy: (name, email, date) => `Aceptada electrónicamente por ${name} (${email}) el ${date}.`,
    rejectedBecause: 'Motivo del rechazo',
    conversation: 'Conversación',
    noMessages: 'Aún no hay mensajes. Pregunta lo que necesites o propón otro precio.',
    client: 'Cliente',
    seller: 'Vendedor',
    about: 'Sobre',
    wholeQuote: 'Toda la cotización',
    earlierLine: 'una línea de una versión anterior',
    message: 'Mensaje',
    counteroffer: 'Contraoferta',
    counterKind: 'Proponer',
    noCounter: 'Nada, solo un mensaje',
    counterPrice: 'Otro precio unitario para la línea',
    counterQuantity: 'Otra cantidad para la línea',
    counterTotal: 'Otro total para la cotización',
    counterValue: 'Valor propuesto',
    send: 'Enviar',
    plan: 'Plan de pagos',
    installment: (n) => `Pago ${n}`,
    deposit: 'Anticipo',
    balanceDue: 'Saldo',
    payBy: 'Pagar a más tardar',
    onApproval: 'al aprobar',
    afterApproval: (days) => `${days} días después de aprobar`,
    singlePayment: (when) => `Un solo pago, ${when}`,
    paid: 'Pagado',
    balance: 'Saldo pendiente',
    payments: 'Pagos recibidos',
    promiseTitle: 'Prometer una fecha de pago',
    promiseDate: 'Fecha en que pagarás',
    promiseAmount: 'Importe',
    promiseSubmit: 'Registrar la promesa',
    promises: 'Promesas de pago',
    promiseState: { pending: 'pendiente', kept: 'cumplida', broken: 'incumplida' },
    done: {
      approve: 'Aprobaste esta cotización. ¡Gracias!',
      reject: 'Rechazaste esta cotización.',
      comment: 'Enviamos tu mensaje al vendedor.',
      promise: 'Registramos tu promesa de pago.',
    },
    errors: {
      csrf: 'La página caducó. Vuelve a cargarla e inténtalo de nuevo.',
      rateLimited: 'Demasiados envíos seguidos. Espera unos minutos e inténtalo de nuevo.',
      notAllowed: 'Esta cotización ya no admite esa acción.',
      summary: 'Revisa lo que se indica:',
      lineas: 'Marca al menos una línea para aprobar.',
      linesNotOnQuote:
        'Una de las líneas marcadas no es de esta cotización. Marca solo las líneas que ves aquí.',
      nombre: 'Escribe tu nombre (hasta 200 caracteres) para aprobar.',
      email: 'Escribe un correo electrónico válido, como nombre@empresa.com.',
      motivo: 'Escribe el motivo en texto simple, de hasta 2000 caracteres.',
      mensaje: 'Escribe un mensaje de 1 a 2000 caracteres.',
      propuesta: 'Escribe un valor mayor que cero para la contraoferta.',
      item_id: 'Para proponer un precio o una cantidad elige la línea; para un total, toda la cotización.',
      lineNotOnQuote:
        'La línea elegida no es de esta cotización. Elige una de sus líneas o toda la cotización.',
      promiseDate: 'Elige una fecha de hoy en adelante.',
      promiseAmount: 'Escribe un importe mayor que cero.',
      promiseOverBalance: 'El importe no puede ser mayor que el saldo pendiente.',
      promiseDecimals: (n) => `Escribe el importe con ${n} decimales como máximo.`,
      other: 'No pudimos registrarlo. Revisa los datos e inténtalo de nuevo.',
    },
  },
  en: {
    language: 'Language',
    decide: 'Your decision',
    linesToApprove: 'Lines you approve',
    linesHint: 'Untick the lines you do not want; the total is recomputed over the ones you approve.',
    signerName: 'Your name',
    signerEmail: 'Your e-mail address',
    acceptanceNote:
      'By approving you accept this quote electronically; we keep your name, e-mail, the date and your IP address.',
    approveSelected: 'Approve the ticked lines',
    rejectTitle: 'Reject the quote',
    rejectReason: 'Reason (optional)',
    declined: 'Not approved',
    partiallyApproved: 'You approved part of this quote. Thank you!',
    acceptedBy: (name, email, date) => `Accepted electronically by ${name} (${email}) on ${date}.`,
    rejectedBecause: 'Reason for rejecting',
    conversation: 'Conversation',
    noMessages: 'No messages yet. Ask anything or propose another price.',
    client: 'Client',
    seller: 'Seller',
    about: 'About',
    wholeQuote: 'The whole quote',
    earlierLine: 'a line of an earlier version',
    message: 'Message',
    counteroffer: 'Counteroffer',
    counterKind: 'Propose',
    noCounter: 'Nothing, just a message',
    counterPrice: 'Another unit price for the line',
    counterQuantity: 'Another quantity for the line',
    counterTotal: 'Another total for the quote',
    counterValue: 'Proposed value',
    send: 'Send',
    plan: 'Payment plan',
    installment: (n) => `Payment ${n}`,
    deposit: 'Deposit',
    balanceDue: 'Balance',
    payBy: 'Pay by',
    onApproval: 'on approval',
    afterApproval: (days) => `${days} days after approval`,
    singlePayment: (when) => `A single payment, ${when}`,
    paid: 'Paid',
    balance: 'Balance due',
    payments: 'Payments received',
    promiseTitle: 'Promise a payment date',
    promiseDate: 'Date you will pay',
    promiseAmount: 'Amount',
    promiseSubmit: 'Record the promise',
    promises: 'Payment promises',
    promiseState: { pending: 'pending', kept: 'kept', broken: 'broken' },
    done: {
      approve: 'You approved this quote. Thank you!',
      reject: 'You rejected this quote.',
      comment: 'Your message was sent to the seller.',
      promise: 'Your promise to pay was recorded.',
    },
    errors: {
      csrf: 'This page has expired. Reload it and try again.',
      rateLimited: 'Too many submissions in a row. Wait a few minutes and try again.',
      notAllowed: 'This quote no longer allows that.',
      summary: 'Please correct the following:',
      lineas: 'Tick at least one line to approve.',
      linesNotOnQuote: "A ticked line is not one of this quote's lines. Tick only the lines shown here.",
      nombre: 'Type your name (up to 200 characters) to approve.',
      email: 'Type a valid e-mail address, like name@company.com.',
      motivo: 'Write the reason as plain text, up to 2000 characters.',
      mensaje: 'Write a message of 1 to 2000 characters.',
      propuesta: 'Enter a value above zero for the counteroffer.',
      item_id: 'To propose a price or a quantity choose the line; for a total, the whole quote.',
      lineNotOnQuote:
        "The chosen line is not one of this quote's lines. Choose one of its lines or the whole quote.",
      promiseDate: 'Choose a date from today on.',
      promiseAmount: 'Enter an amount above zero.',
      promiseOverBalance: 'The amount cannot be above the balance due.',
      promiseDecimals: (n) => `Enter the amount with at most ${n} decimals.`,
      other: 'We could not record that. Check the data and try again.',
    },
  },
  pt: {
    language: 'Idioma',
    decide: 'A sua decisão',
    linesToApprove: 'Linhas que aprova',
    linesHint: 'Desmarque as linhas que não quer; o total é recalculado sobre as que aprovar.',
    signerName: 'O seu nome',
    signerEmail: 'O seu e-mail',
    acceptanceNote:
      'Ao aprovar, aceita este orçamento eletronicamente; guardamos o seu nome, e-mail, a data e o seu endereço IP.',
    approveSelected: 'Aprovar as linhas marcadas',
    rejectTitle: 'Recusar o orçamento',
    rejectReason: 'Motivo (opcional)',
    declined: 'Não aprovada',
    partiallyApproved: 'Aprovou parte deste orçamento. Obrigado!',
    acceptedBy: (name, email, date) => `Aceite eletronicamente por ${name} (${email}) em ${date}.`,
    rejectedBecause: 'Motivo da recusa',
    conversation: 'Conversa',
    noMessages: 'Ainda não há mensagens. Pergunte o que precisar ou proponha outro preço.',
    client: 'Cliente',
    seller: 'Vendedor',
    about: 'Sobre',
    wholeQuote: 'Todo o orçamento',
    earlierLine: 'uma linha de uma versão anterior',
    message: 'Mensagem',
    counteroffer: 'Contraproposta',
    counterKind: 'Propor',
    noCounter: 'Nada, só uma mensagem',
    counterPrice: 'Outro preço unitário para a linha',
    counterQuantity: 'Outra quantidade para a linha',
    counterTotal: 'Outro total para o orçamento',
    counterValue: 'Valor proposto',
    send: 'Enviar',
    plan: 'Plano de pagamento',
    installment: (n) => `Pagamento ${n}`,
    deposit: 'Entrada',
    balanceDue: 'Saldo',
    payBy: 'Pagar até',
    onApproval: 'na aprovação',
    afterApproval: (days) => `${days} dias após a aprovação`,
    singlePayment: (when) => `Um único pagamento, ${when}`,
    paid: 'Pago',
    balance: 'Saldo em aberto',
    payments: 'Pagamentos recebidos',
    promiseTitle: 'Prometer uma data de pagamento',
    promiseDate: 'Data em que pagará',
    promiseAmount: 'Valor',
    promiseSubmit: 'Registar a promessa',
    promises: 'Promessas de pagamento',
    promiseState: { pending: 'pendente', kept: 'cumprida', broken: 'não cumprida' },
    done: {
      approve: 'Aprovou este orçamento. Obrigado!',
      reject: 'Recusou este orçamento.',
      comment: 'A sua mensagem foi enviada ao vendedor.',
      promise: 'Registámos a sua promessa de pagamento.',
    },
    errors: {
      csrf: 'Esta página expirou. Recarregue-a e tente de novo.',
      rateLimited: 'Demasiados envios seguidos. Aguarde alguns minutos e tente de novo.',
      notAllowed: 'Este orçamento já não permite essa ação.',
      summary: 'Corrija o seguinte:',
      lineas: 'Marque pelo menos uma linha para aprovar.',
      linesNotOnQuote: 'Uma das linhas marcadas não é deste orçamento. Marque só as linhas que vê aqui.',
      nombre: 'Escreva o seu nome (até 200 caracteres) para aprovar.',
      email: 'Escreva um e-mail válido, como nome@empresa.com.',
      motivo: 'Escreva o motivo em texto simples, até 2000 caracteres.',
      mensaje: 'Escreva uma mensagem de 1 a 2000 caracteres.',
      propuesta: 'Indique um valor maior que zero para a contraproposta.',
      item_id: 'Para propor um preço ou uma quantidade escolha a linha; para um total, todo o orçamento.',
      lineNotOnQuote:
        'A linha escolhida não é deste orçamento. Escolha uma das suas linhas ou todo o orçamento.',
      promiseDate: 'Escolha uma data de hoje em diante.',
      promiseAmount: 'Indique um valor maior que zero.',
      promiseOverBalance: 'O valor não pode ser maior que o saldo em aberto.',
      promiseDecimals: (n) => `Indique o valor com no máximo ${n} casas decimais.`,
      other: 'Não foi possível registar. Verifique os dados e tente de novo.',
    },
  },
  fr: {
    language: 'Langue',
    decide: 'Votre décision',
    linesToApprove: 'Lignes que vous acceptez',
    linesHint:
      'Décochez les lignes que vous ne voulez pas ; le total est recalculé sur celles que vous acceptez.',
    signerName: 'Votre nom',
    signerEmail: 'Votre adresse e-mail',
    acceptanceNote:
      'En acceptant, vous signez ce devis électroniquement ; nous conservons votre nom, votre e-mail, la date et votre adresse IP.',
    approveSelected: 'Accepter les lignes cochées',
    rejectTitle: 'Refuser le devis',
    rejectReason: 'Motif (facultatif)',
    declined: 'Non acceptée',
    partiallyApproved: 'Vous avez accepté une partie de ce devis. Merci !',
    acceptedBy: (name, email, date) => `Accepté électroniquement par ${name} (${email}) le ${date}.`,
    rejectedBecause: 'Motif du refus',
    conversation: 'Conversation',
    noMessages: 'Aucun message pour l’instant. Posez vos questions ou proposez un autre prix.',
    client: 'Client',
    seller: 'Vendeur',
    about: 'Au sujet de',
    wholeQuote: 'Tout le devis',
    earlierLine: 'une ligne d’une version précédente',
    message: 'Message',
    counteroffer: 'Contre-offre',
    counterKind: 'Proposer',
    noCounter: 'Rien, seulement un message',
    counterPrice: 'Un autre prix unitaire pour la ligne',
    counterQuantity: 'Une autre quantité pour la ligne',
    counterTotal: 'Un autre total pour le devis',
    counterValue: 'Valeur proposée',
    send: 'Envoyer',
    plan: 'Échéancier',
    installment: (n) => `Paiement ${n}`,
    deposit: 'Acompte',
    balanceDue: 'Solde',
    payBy: 'À payer au plus tard',
    onApproval: 'à l’acceptation',
    afterApproval: (days) => `${days} jours après l’acceptation`,
    singlePayment: (when) => `Un seul paiement, ${when}`,
    paid: 'Payé',
    balance: 'Reste à payer',
    payments: 'Paiements reçus',
    promiseTitle: 'Promettre une date de paiement',
    promiseDate: 'Date à laquelle vous paierez',
    promiseAmount: 'Montant',
    promiseSubmit: 'Enregistrer la promesse',
    promises: 'Promesses de paiement',
    promiseState: { pending: 'en attente', kept: 'tenue', broken: 'non tenue' },
    done: {
      approve: 'Vous avez accepté ce devis. Merci !',
      reject: 'Vous avez refusé ce devis.',
      comment: 'Votre message a été envoyé au vendeur.',
      promise: 'Votre promesse de paiement est enregistrée.',
    },
    errors: {
      csrf: 'Cette page a expiré. Rechargez-la et réessayez.',
      rateLimited: 'Trop d’envois à la suite. Attendez quelques minutes et réessayez.',
      notAllowed: 'Ce devis ne permet plus cette action.',
      summary: 'Veuillez corriger ce qui suit\u00a0:',
      lineas: 'Cochez au moins une ligne à accepter.',
      linesNotOnQuote:
        'Une des lignes cochées ne fait pas partie de ce devis. Cochez seulement les lignes affichées ici.',
      nombre: 'Saisissez votre nom (200 caractères au plus) pour accepter.',
      email: 'Saisissez une adresse e-mail valide, par exemple nom@entreprise.com.',
      motivo: 'Écrivez le motif en texte simple, 2000 caractères au plus.',
      mensaje: 'Écrivez un message de 1 à 2000 caractères.',
      propuesta: 'Saisissez une valeur supérieure à zéro pour la contre-offre.',
      item_id: 'Pour proposer un prix ou une quantité, choisissez la ligne ; pour un total, tout le devis.',
      lineNotOnQuote:
        'La ligne choisie ne fait pas partie de ce devis. Choisissez l’une de ses lignes ou tout le devis.',
      promiseDate: 'Choisissez une date à partir d’aujourd’hui.',
      promiseAmount: 'Saisissez un montant supérieur à zéro.',
      promiseOverBalance: 'Le montant ne peut pas dépasser le reste à payer.',
      promiseDecimals: (n) => `Saisissez le montant avec ${n} décimales au plus.`,
      other: 'Impossible d’enregistrer. Vérifiez les données et réessayez.',
    },
  },
  de: {
    language: 'Sprache',
    decide: 'Ihre Entscheidung',
    linesToApprove: 'Positionen, die Sie annehmen',
    linesHint:
      'Entfernen Sie das Häkchen bei Positionen, die Sie nicht wollen; die Summe wird neu berechnet.',
    signerName: 'Ihr Name',
    signerEmail: 'Ihre E-Mail-Adresse',
    acceptanceNote:
      'Mit der Annahme bestätigen Sie dieses Angebot elektronisch; wir speichern Ihren Namen, Ihre E-Mail, das Datum und Ihre IP-Adresse.',
    approveSelected: 'Markierte Positionen annehmen',
    rejectTitle: 'Angebot ablehnen',
    rejectReason: 'Grund (optional)',
    declined: 'Nicht angenommen',
    partiallyApproved: 'Sie haben einen Teil dieses Angebots angenommen. Vielen Dank!',
    acceptedBy: (name, email, date) => `Elektronisch angenommen von ${name} (${email}) am ${date}.`,
    rejectedBecause: 'Grund der Ablehnung',
    conversation: 'Unterhaltung',
    noMessages:
      'Noch keine Nachrichten. Fragen Sie, was Sie wissen möchten, oder schlagen Sie einen anderen Preis vor.',
    client: 'Kunde',
    seller: 'Verkäufer',
    about: 'Zu',
    wholeQuote: 'Das ganze Angebot',
    earlierLine: 'eine Zeile einer früheren Fassung',
    message: 'Nachricht',
    counteroffer: 'Gegenangebot',
    counterKind: 'Vorschlagen',
    noCounter: 'Nichts, nur eine Nachricht',
    counterPrice: 'Einen anderen Stückpreis für die Position',
    counterQuantity: 'Eine andere Menge für die Position',
    counterTotal: 'Eine andere Gesamtsumme für das Angebot',
    counterValue: 'Vorgeschlagener Wert',
    send: 'Senden',
    plan: 'Zahlungsplan',
    installment: (n) => `Zahlung ${n}`,
    deposit: 'Anzahlung',
    balanceDue: 'Restbetrag',
    payBy: 'Zahlbar bis',
    onApproval: 'bei Annahme',
    afterApproval: (days) => `${days} Tage nach Annahme`,
    singlePayment: (when) => `Eine Zahlung, ${when}`,
    paid: 'Bezahlt',
    balance: 'Offener Betrag',
    payments: 'Eingegangene Zahlungen',
    promiseTitle: 'Einen Zahlungstermin zusagen',
    promiseDate: 'Datum, an dem Sie zahlen',
    promiseAmount: 'Betrag',
    promiseSubmit: 'Zusage speichern',
    promises: 'Zahlungszusagen',
    promiseState: { pending: 'offen', kept: 'eingehalten', broken: 'nicht eingehalten' },
    done: {
      approve: 'Sie haben dieses Angebot angenommen. Vielen Dank!',
      reject: 'Sie haben dieses Angebot abgelehnt.',
      comment: 'Ihre Nachricht wurde an den Verkäufer gesendet.',
      promise: 'Ihre Zahlungszusage wurde gespeichert.',
    },
    errors: {
      csrf: 'Diese Seite ist abgelaufen. Laden Sie sie neu und versuchen Sie es noch einmal.',
      rateLimited:
        'Zu viele Sendungen hintereinander. Warten Sie einige Minuten und versuchen Sie es erneut.',
      notAllowed: 'Dieses Angebot lässt das nicht mehr zu.',
      summary: 'Bitte korrigieren Sie Folgendes:',
      lineas: 'Markieren Sie mindestens eine Position zur Annahme.',
      linesNotOnQuote:
        'Eine markierte Position gehört nicht zu diesem Angebot. Markieren Sie nur die hier gezeigten Positionen.',
      nombre: 'Geben Sie Ihren Namen ein (höchstens 200 Zeichen), um anzunehmen.',
      email: 'Geben Sie eine gültige E-Mail-Adresse ein, z. B. name@firma.de.',
      motivo: 'Schreiben Sie den Grund als einfachen Text mit höchstens 2000 Zeichen.',
      mensaje: 'Schreiben Sie eine Nachricht mit 1 bis 2000 Zeichen.',
      propuesta: 'Geben Sie für das Gegenangebot einen Wert über null ein.',
      item_id: 'Für einen Preis oder eine Menge wählen Sie die Position; für eine Summe das ganze Angebot.',
      lineNotOnQuote:
        'Die gewählte Position gehört nicht zu diesem Angebot. Wählen Sie eine seiner Positionen oder das ganze Angebot.',
      promiseDate: 'Wählen Sie ein Datum ab heute.',
      promiseAmount: 'Geben Sie einen Betrag über null ein.',
      promiseOverBalance: 'Der Betrag darf den offenen Betrag nicht übersteigen.',
      promiseDecimals: (n) => `Geben Sie den Betrag mit höchstens ${n} Nachkommastellen ein.`,
      other: 'Das konnten wir nicht speichern. Prüfen Sie die Angaben und versuchen Sie es erneut.',
    },
  },
};
