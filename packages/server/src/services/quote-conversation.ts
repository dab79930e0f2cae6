import { countChars } from '@svc/core';
import type { Queryable } from '../db/database.js';
import { invalidRequest } from '../errors.js';
import { insertEvent } from '../repositories/events.js';
import {
  type Author,
  findQuoteMessages,
  insertQuoteMessage,
  type Proposal,
  type QuoteMessage,
} from '../repositories/quote-messages.js';
import type { QuoteRow } from '../repositories/quotes.js';
import { minorAmount } from './payments.js';
import { quoteEventData } from './quote-view.js';

/** The longest message of a conversation, in characters. */
export const MAX_MESSAGE_LENGTH = 2000;

/** What a message says and about what, before it is stored. */
export interface NewMessage {
  autor: Author;
  mensaje: string;
  item_id?: string | null | undefined;
  propuesta?: Proposal | null | undefined;
}

/**
 * Checks a message's text: plain text of 1–2,000 characters once trimmed, without control
 * characters other than line breaks and tabs (it is shown on pages, in e-mails and in events).
 * `field` names what is checked in the refusal: a rejection's reason (`motivo`) is held to the same
 * rules, and its error must point at the reason, not at the conversation's message.
 */
export function cleanMessage(mensaje: unknown, field: 'mensaje' | 'motivo' = 'mensaje'): string {
  const refuse = (why: string) => invalidRequest(`${field}: ${why}`, { field });
  if (typeof mensaje !== 'string') throw refuse('must be a string');
  const text = mensaje.replace(/\r\n?/g, '\n').trim();
  if (text.length < 1) throw refuse('must not be empty');
  if (countChars(text) > MAX_MESSAGE_LENGTH) throw refuse(`must be at most ${MAX_MESSAGE_LENGTH} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text))
    throw refuse('must be plain text, without control characters');
  return text;
}

/** The largest quantity a counteroffer may propose for a line. */
const MAX_PROPOSED_QUANTITY = 1_000_000;

/**
 * Checks a counteroffer's proposal (design.md section 14): exactly one of a unit price or a
 * quantity for a line (`item_id` required), or a total for the whole quote (no `item_id`), above 0;
 * amounts with no more decimals than the quote's currency has.
 */
export function checkProposal(quote: QuoteRow, propuesta: Proposal, itemId: string | null): Proposal {
  const entries = Object.entries(propuesta).filter(([, value]) => value !== undefined);
  if (entries.length !== 1) {
    throw invalidRequest('propuesta: give exactly one of precio_unitario, cantidad or total', {
      field: 'propuesta',
    });
  }
  const [[name, value]] = entries as [[keyof Proposal, number]];
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw invalidRequest(`propuesta.${name}: must be a number greater than 0`, { field: 'propuesta' });
  }
  if (name === 'total' && itemId !== null) {
    throw invalidRequest(
      'propuesta.total: a total is for the whole quote, not one line (leave item_id out)',
      {
        field: 'item_id',
      },
    );
  }
  if (name !== 'total' && itemId === null) {
    throw invalidRequest(`propuesta.${name}: name the line it is for (item_id)`, { field: 'item_id' });
  }
  if (name === 'cantidad') {
    if (value > MAX_PROPOSED_QUANTITY || Math.round(value * 10_000) !== value * 10_000) {
      throw invalidRequest('propuesta.cantidad: at most 1,000,000 with up to 4 decimals', {
        field: 'propuesta',
      });
    }
  } else {
    minorAmount(value, quote.moneda, `propuesta.${name}`);
  }
  return { [name]: value };
}

/**
 * Adds a message to the quote's conversation, with its `quote.comment_added` event, in the
 * caller's transaction. `item_id` must be a line of this very quote (400 otherwise: a token or key
 * never reaches another quote's lines). A counteroffer never changes the quote: the seller answers
 * it with `resend`.
 */
export async function addQuoteMessage(
  tx: Queryable,
  quote: QuoteRow,
  message: NewMessage,
  actor: string,
): Promise<QuoteMessage> {
  const mensaje = cleanMessage(message.mensaje);
  const itemId = message.item_id ?? null;
  if (itemId !== null) {
    const [line] = await tx.query('SELECT 1 FROM quote_items WHERE id::text = $1 AND quote_id = $2', [
      itemId,
      quote.id,
    ]);
    if (!line) throw invalidRequest('item_id: not a line of this quote', { field: 'item_id' });
  }
  const propuesta = message.propuesta ? checkProposal(quote, message.propuesta, itemId) : null;
  const tipo = propuesta ? 'contraoferta' : 'mensaje';
  const stored = await insertQuoteMessage(
    tx,
    quote.id,
    { autor: message.autor, mensaje, item_id: itemId, tipo, propuesta },
    actor,
  );
  await insertEvent(tx, {
    orgId: quote.org_id,
    mode: quote.mode,
    type: 'quote.comment_added',
    object: 'quote',
    objectId: quote.id,
    data: {
      ...quoteEventData(quote),
      autor: message.autor,
      mensaje,
      item_id: itemId,
      tipo,
      ...(propuesta ? { propuesta } : {}),
    },
    actor,
  });
  return stored;
}

/** What the quote detail adds about the client's side: the conversation and the acceptance. */
export async function conversationFields(db: Queryable, quote: QuoteRow) {
  return {
    conversacion: await findQuoteMessages(db, quote.id),
    aceptacion: quote.aceptacion ?? null,
    motivo_rechazo: quote.motivo_rechazo ?? null,
  };
}
