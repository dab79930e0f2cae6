import type { Lang } from './messages.js';

/** Strings of the setup plan review page. */
export interface ReviewMessages {
  title: string;
  intro: (org: string) => string;
  summary: string;
  products: string;
  coupons: string;
  workflows: string;
  widget: string;
  field: string;
  before: string;
  after: string;
  none: string;
  newItem: string;
  approve: string;
  reject: string;
  expires: (date: string) => string;
  status: Record<'applied' | 'rejected' | 'expired' | 'conflict' | 'already_decided', string>;
  notFound: string;
  csrf: string;
  yes: string;
  no: string;
  /** What each field of a change is called, by its key. */
  fields: Record<ReviewField, string>;
}

/** The fields the review page's tables show, by their keys in the proposal. */
export type ReviewField =
  | 'nombre'
  | 'unidad'
  | 'precio_lista'
  | 'moneda'
  | 'tax_rate'
  | 'aliases'
  | 'tipo'
  | 'valor'
  | 'max_uses'
  | 'expires_at'
  | 'active'
  | 'objeto'
  | 'pasos'
  | 'estados'
  | 'color'
  | 'origins'
  | 'ai_draft'
  | 'coupons'
  | 'custom_items';

export const REVIEW_MESSAGES: Record<Lang, ReviewMessages> = {
  es: {
    title: 'Revisar cambios propuestos',
    intro: (org) =>
      `Un asistente propone estos cambios a la cuenta de ${org}. Nada se aplica hasta que lo apruebes, y se aplica todo o nada.`,
    summary: 'Resumen',
    products: 'Productos',
    coupons: 'Cupones',
    workflows: 'Flujos de trabajo',
    widget: 'Widget',
    field: 'Campo',
    before: 'Antes',
    after: 'Después',
    none: '—',
    newItem: 'nuevo',
    approve: 'Aprobar y aplicar todo',
    reject: 'Rechazar',
    expires: (date) => `La propuesta vence el ${date}.`,
    status: {
      applied: 'Los cambios se aplicaron.',
      rejected: 'La propuesta fue rechazada; no se aplicó nada.',
      expired: 'La propuesta venció; no se aplicó nada.',
      conflict:
        'Algo de lo que la propuesta cambiaría se modificó después de proponerla; no se aplicó nada. Pide una propuesta nueva.',
      already_decided: 'Esta propuesta ya fue decidida.',
    },
    notFound: 'Propuesta no encontrada',
    csrf: 'El formulario caducó. Vuelve a cargar la página e inténtalo de nuevo.',
    yes: 'Sí',
    no: 'No',
    fields: {
      nombre: 'Nombre',
      unidad: 'Unidad',
      precio_lista: 'Precio de lista',
      moneda: 'Moneda',
      tax_rate: 'Tasa de impuesto',
      aliases: 'Sinónimos',
      tipo: 'Tipo',
      valor: 'Valor',
      max_uses: 'Usos máximos',
      expires_at: 'Vence',
      active: 'Activo',
      objeto: 'Se aplica a',
      pasos: 'Pasos',
      estados: 'Estados',
      color: 'Color',
      origins: 'Sitios permitidos',
      ai_draft: 'Describir lo que necesitas',
      coupons: 'Cupones',
      custom_items: 'Líneas de texto libre',
    },
  },
  en: {
    title: 'Review proposed changes',
    intro: (org) =>
      `An assistant proposes these changes to ${org}'s account. Nothing is applied until you approve, and then all of it or nothing.`,
    summary: 'Summary',
    products: 'Products',
    coupons: 'Coupons',
    workflows: 'Workflows',
    widget: 'Widget',
    field: 'Field',
    before: 'Before',
    after: 'After',
    none: '—',
    newItem: 'new',
    approve: 'Approve and apply everything',
    reject: 'Reject',
    expires: (date) => `The proposal expires on ${date}.`,
    status: {
      applied: 'The changes were applied.',
      rejected: 'The proposal was rejected; nothing was applied.',
      expired: 'The proposal expired; nothing was applied.',
      conflict:
        'Something the proposal would change was edited after it was made; nothing was applied. Ask for a new proposal.',
      already_decided: 'This proposal has already been decided.',
    },
    notFound: 'Proposal not found',
    csrf: 'The form expired. Reload the page and try again.',
    yes: 'Yes',
    no: 'No',
    fields: {
      nombre: 'Name',
      unidad: 'Unit',
      precio_lista: 'List price',
      moneda: 'Currency',
      tax_rate: 'Tax rate',
      aliases: 'Synonyms',
      tipo: 'Type',
      valor: 'Value',
      max_uses: 'Maximum uses',
      expires_at: 'Expires',
      active: 'Active',
      objeto: 'Applies to',
      pasos: 'Steps',
      estados: 'States',
      color: 'Colour',
      origins: 'Allowed sites',
      ai_draft: 'Describe what you need',
      coupons: 'Coupons',
      custom_items: 'Free-text lines',
    },
  },
  pt: {
    title: 'Revisar as alterações propostas',
    intro: (org) =>
      `Um assistente propõe estas alterações à conta de ${org}. Nada é aplicado até você aprovar, e então tudo ou nada.`,
    summary: 'Resumo',
    products: 'Produtos',
    coupons: 'Cupons',
    workflows: 'Fluxos de trabalho',
    widget: 'Widget',
    field: 'Campo',
    before: 'Antes',
    after: 'Depois',
    none: '—',
    newItem: 'novo',
    approve: 'Aprovar e aplicar tudo',
    reject: 'Rejeitar',
    expires: (date) => `A proposta vence em ${date}.`,
    status: {
      applied: 'As alterações foram aplicadas.',
      rejected: 'A proposta foi rejeitada; nada foi aplicado.',
      expired: 'A proposta venceu; nada foi aplicado.',
      conflict:
        'Algo que a proposta alteraria foi editado depois; nada foi aplicado. Peça uma nova proposta.',
      already_decided: 'Esta proposta já foi decidida.',
    },
    notFound: 'Proposta não encontrada',
    csrf: 'O formulário expirou. Recarregue a página e tente de novo.',
    yes: 'Sim',
    no: 'Não',
    fields: {
      nombre: 'Nome',
      unidad: 'Unidade',
      precio_lista: 'Preço de tabela',
      moneda: 'Moeda',
      tax_rate: 'Alíquota de imposto',
      aliases: 'Sinônimos',
      tipo: 'Tipo',
      valor: 'Valor',
      max_uses: 'Usos máximos',
      expires_at: 'Vence',
      active: 'Ativo',
      objeto: 'Aplica-se a',
      pasos: 'Etapas',
      estados: 'Estados',
      color: 'Cor',
      origins: 'Sites permitidos',
      ai_draft: 'Descreva o que precisa',
      coupons: 'Cupons',
      custom_items: 'Linhas de texto livre',
    },
  },
  fr: {
    title: 'Vérifier les modifications proposées',
    intro: (org) =>
      `Un assistant propose ces modifications du compte de ${org}. Rien n'est appliqué avant votre accord, et alors tout ou rien.`,
    summary: 'Résumé',
    products: 'Produits',
    coupons: 'Coupons',
    workflows: 'Flux de travail',
    widget: 'Widget',
    field: 'Champ',
    before: 'Avant',
    after: 'Après',
    none: '—',
    newItem: 'nouveau',
    approve: 'Approuver et tout appliquer',
    reject: 'Refuser',
    expires: (date) => `La proposition expire le ${date}.`,
    status: {
      applied: 'Les modifications ont été appliquées.',
      rejected: "La proposition a été refusée ; rien n'a été appliqué.",
      expired: "La proposition a expiré ; rien n'a été appliqué.",
      conflict:
        "Un élément que la proposition modifierait a changé depuis ; rien n'a été appliqué. Demandez une nouvelle proposition.",
      already_decided: 'Cette proposition a déjà été tranchée.',
    },
    notFound: 'Proposition introuvable',
    csrf: 'Le formulaire a expiré. Rechargez la page et réessayez.',
    yes: 'Oui',
    no: 'Non',
    fields: {
      nombre: 'Nom',
      unidad: 'Unité',
      precio_lista: 'Prix catalogue',
      moneda: 'Devise',
      tax_rate: 'Taux de taxe',
      aliases: 'Synonymes',
      tipo: 'Type',
      valor: 'Valeur',
      max_uses: 'Utilisations maximales',
      expires_at: 'Expire',
      active: 'Actif',
      objeto: "S'applique à",
      pasos: 'Étapes',
      estados: 'États',
      color: 'Couleur',
      origins: 'Sites autorisés',
      ai_draft: 'Décrivez votre besoin',
      coupons: 'Coupons',
      custom_items: 'Lignes en texte libre',
    },
  },
  de: {
    title: 'Vorgeschlagene Änderungen prüfen',
    intro: (org) =>
      `Ein Assistent schlägt diese Änderungen am Konto von ${org} vor. Nichts wird angewendet, bevor Sie zustimmen, und dann alles oder nichts.`,
    summary: 'Zusammenfassung',
    products: 'Produkte',
    coupons: 'Gutscheine',
    workflows: 'Workflows',
    widget: 'Widget',
    field: 'Feld',
    before: 'Vorher',
    after: 'Nachher',
    none: '—',
    newItem: 'neu',
    approve: 'Genehmigen und alles anwenden',
    reject: 'Ablehnen',
    expires: (date) => `Der Vorschlag läuft am ${date} ab.`,
    status: {
      applied: 'Die Änderungen wurden angewendet.',
      rejected: 'Der Vorschlag wurde abgelehnt; nichts wurde angewendet.',
      expired: 'Der Vorschlag ist abgelaufen; nichts wurde angewendet.',
      conflict:
        'Etwas, das der Vorschlag ändern würde, wurde inzwischen bearbeitet; nichts wurde angewendet. Bitten Sie um einen neuen Vorschlag.',
      already_decided: 'Über diesen Vorschlag wurde bereits entschieden.',
    },
    notFound: 'Vorschlag nicht gefunden',
    csrf: 'Das Formular ist abgelaufen. Laden Sie die Seite neu und versuchen Sie es erneut.',
    yes: 'Ja',
    no: 'Nein',
    fields: {
      nombre: 'Name',
      unidad: 'Einheit',
      precio_lista: 'Listenpreis',
      moneda: 'Währung',
      tax_rate: 'Steuersatz',
      aliases: 'Synonyme',
      tipo: 'Art',
      valor: 'Wert',
      max_uses: 'Höchstzahl der Nutzungen',
      expires_at: 'Läuft ab',
      active: 'Aktiv',
      objeto: 'Gilt für',
      pasos: 'Schritte',
      estados: 'Status',
      color: 'Farbe',
      origins: 'Erlaubte Websites',
      ai_draft: 'Beschreiben Sie Ihren Bedarf',
      coupons: 'Gutscheine',
      custom_items: 'Freitextzeilen',
    },
  },
};
