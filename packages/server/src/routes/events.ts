import { Hono } from 'hono';
import { ApiError, invalidRequest } from '../errors.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';
import { enumParam, intParam, onlyParams } from '../http/query.js';
import { isUuid } from '../ids.js';
import { endpoint } from '../middleware/endpoint.js';
import { listEvents } from '../repositories/events.js';
import { EVENT_TYPES, eventResource, mayReceive } from '../services/event-catalog.js';
import type { AppDeps, AppEnv } from '../types.js';

/** `GET /events`: the organization's event history, newest first, with stable cursors. */
export function eventRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().get(
    '/events',
    endpoint(deps, { resource: 'events', level: 'read' }),
    async (c) => {
      const { key, org } = c.get('auth');
      const query = c.req.query();
      onlyParams(query, ['type', 'object_id', 'limit', 'cursor']);
      const limit = intParam(query.limit, 'limit', 1, 200) ?? 50;
      const type = enumParam(query.type, 'type', EVENT_TYPES);
      if (query.object_id !== undefined && !isUuid(query.object_id))
        throw invalidRequest('object_id: must be a UUID');
      // A restricted key reads only the events of what it may read, as its webhooks and listen
      // sessions receive them: an event carries its record's data (a client's e-mail, an invoice).
      const types = key.kind === 'restricted' ? EVENT_TYPES.filter((t) => mayReceive(key, t)) : undefined;
      if (type && types && !types.includes(type)) {
        throw new ApiError(
          403,
          'insufficient_scope',
          `type: this restricted key has no read permission on ${eventResource(type)}, so it cannot read ${type}.`,
        );
      }
      const page = await listEvents(deps.db, {
        orgId: org.id,
        mode: key.mode,
        type,
        types,
        objectId: query.object_id,
        beforeSeq: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
        limit,
      });
      return c.json({
        data: page.records,
        meta: { limit, next_cursor: page.more && page.lastSeq !== null ? encodeCursor(page.lastSeq) : null },
      });
    },
  );
}
