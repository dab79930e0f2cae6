import type { Queryable } from '../db/database.js';

/** Who wrote a message of a quote's conversation. */
export type Author = 'cliente' | 'vendedor';

/** A counteroffer's proposal: a unit price or quantity for a line, or a total for the quote. */
export interface Proposal {
  precio_unitario?: number;
  cantidad?: number;
  total?: number;
}

/** One message of a quote's conversation, as the API shows it. */
export interface QuoteMessage {
  id: string;
  autor: Author;
  mensaje: string;
  item_id: string | null;
  tipo: 'mensaje' | 'contraoferta';
  propuesta: Proposal | null;
  created_at: string;
}

const COLUMNS = `id, autor, mensaje, item_id, tipo, propuesta,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`;

/** Adds a message to a quote's conversation. */
export async function insertQuoteMessage(
  tx: Queryable,
  quoteId: string,
  message: Omit<QuoteMessage, 'id' | 'created_at'>,
  actor: string,
): Promise<QuoteMessage> {
  const [row] = await tx.query<QuoteMessage>(
    `INSERT INTO quote_messages (quote_id, autor, mensaje, item_id, tipo, propuesta, actor)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [
      quoteId,
      message.autor,
      message.mensaje,
      message.item_id,
      message.tipo,
      message.propuesta ? JSON.stringify(message.propuesta) : null,
      actor,
    ],
  );
  return row!;
}

/** The last message of a quote's conversation, if any. */
export async function findLastQuoteMessage(
  db: Queryable,
  quoteId: string,
): Promise<QuoteMessage | undefined> {
  const [row] = await db.query<QuoteMessage>(
    `SELECT ${COLUMNS} FROM quote_messages WHERE quote_id = $1 ORDER BY seq DESC LIMIT 1`,
    [quoteId],
  );
  return row;
}

/** A quote's conversation, oldest first. */
export function findQuoteMessages(db: Queryable, quoteId: string): Promise<QuoteMessage[]> {
  return db.query<QuoteMessage>(`SELECT ${COLUMNS} FROM quote_messages WHERE quote_id = $1 ORDER BY seq`, [
    quoteId,
  ]);
}
