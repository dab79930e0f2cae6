import type { Lang } from './messages.js';

/** Texts of the payment reminder a workflow's `send_reminder` step writes to the client. */
export interface ReminderMessages {
  subject: (document: string, merchant: string) => string;
  body: (client: string, merchant: string, document: string, balance: string, link: string) => string;
}

/** The reminder in the five languages the service writes to clients in. */
export const REMINDER: Record<Lang, ReminderMessages> = {
  es: {
    subject: (d, m) => `Recordatorio: ${d} de ${m}`,
    body: (c, m, d, b, l) =>
      `Hola ${c}:\n\nLe recordamos que ${d} de ${m} tiene un saldo de ${b}.\nPuede consultarlo aquí: ${l}\n\nGracias.`,
  },
  en: {
    subject: (d, m) => `Reminder: ${d} from ${m}`,
    body: (c, m, d, b, l) =>
      `Hello ${c},\n\nThis is a reminder that ${d} from ${m} has a balance of ${b}.\nYou can see it here: ${l}\n\nThank you.`,
  },
  pt: {
    subject: (d, m) => `Lembrete: ${d} de ${m}`,
    body: (c, m, d, b, l) =>
      `Olá ${c},\n\nLembramos que ${d} de ${m} tem um saldo de ${b}.\nVeja aqui: ${l}\n\nObrigado.`,
  },
  fr: {
    subject: (d, m) => `Rappel : ${d} de ${m}`,
    body: (c, m, d, b, l) =>
      `Bonjour ${c},\n\nNous vous rappelons que ${d} de ${m} présente un solde de ${b}.\nVous pouvez le consulter ici : ${l}\n\nMerci.`,
  },
  de: {
    subject: (d, m) => `Erinnerung: ${d} von ${m}`,
    body: (c, m, d, b, l) =>
      `Hallo ${c},\n\nwir erinnern Sie daran, dass ${d} von ${m} einen offenen Betrag von ${b} hat.\nHier einsehen: ${l}\n\nVielen Dank.`,
  },
};
