import { Hono } from 'hono';
import * as v from 'valibot';
import { readJson } from '../http/json-body.js';
import { parse, readNoFields } from '../http/parse.js';
import { intParam, offsetMeta, offsetPaging, onlyParams } from '../http/query.js';
import { endpoint } from '../middleware/endpoint.js';
import { EVENT_TYPES } from '../services/event-catalog.js';
import type { AppDeps, AppEnv } from '../types.js';
import {
  createEndpoint,
  deleteEndpoint,
  fireTest,
  listDeliveries,
  listEndpoints,
  reactivate,
  retryJob,
  rotateSecret,
} from '../webhooks/endpoints.js';
import { closeListenSession, collectListenSession, openListenSession } from '../webhooks/listen.js';

const eventName = v.picklist(EVENT_TYPES, 'must be an event name of the catalog');
export const webhookCreateSchema = v.strictObject({
  url: v.pipe(v.string('must be a string'), v.maxLength(2048, 'must be at most 2048 characters')),
  eventos: v.optional(v.pipe(v.array(eventName, 'must be a list of event names'), v.maxLength(50)), []),
});
export const rotateSchema = v.strictObject({
  overlap_hours: v.picklist([1, 24, 72] as const, 'must be 1, 24 or 72'),
});
export const reactivateSchema = v.strictObject({
  retry_last_24h: v.optional(v.boolean('must be true or false'), false),
});
export const webhookTestSchema = v.strictObject({
  webhook_id: v.string('must be a string'),
  event: v.optional(v.picklist(EVENT_TYPES, 'must be ping or an event name of the catalog'), 'ping'),
});

/** A page of `GET /webhooks` without `limit`: every endpoint a key can have (100 an organization). */
const ENDPOINTS_PAGE = 100;

/**
 * Webhook endpoints of the calling key (`/webhooks`), their health operations, the delivery log,
 * manual retries, and the test helper that fires a ping.
 */
export function webhookRoutes(deps: AppDeps) {
  const read = endpoint(deps, { resource: 'webhooks', level: 'read' });
  const write = endpoint(deps, { resource: 'webhooks', level: 'write' });
  return new Hono<AppEnv>()
    .get('/webhooks', read, async (c) => {
      const query = c.req.query();
      const page = offsetPaging({ limit: String(ENDPOINTS_PAGE), ...query });
      const { data, total } = await listEndpoints(deps, c.get('auth'), page);
      return c.json({ data, meta: offsetMeta(page, total) });
    })
    .post('/webhooks', write, async (c) => {
      const body = parse(webhookCreateSchema, await readJson(c));
      return c.json({ data: await createEndpoint(deps, c.get('auth'), body) });
    })
    .delete('/webhooks/:id', write, async (c) => {
      await readNoFields(c);
      return c.json({ data: await deleteEndpoint(deps, c.get('auth'), c.req.param('id')) });
    })
    .post('/webhooks/:id/rotate_secret', write, async (c) => {
      const body = parse(rotateSchema, await readJson(c));
      return c.json({ data: await rotateSecret(deps, c.get('auth'), c.req.param('id'), body.overlap_hours) });
    })
    .post('/webhooks/:id/reactivate', write, async (c) => {
      const body = parse(reactivateSchema, await readJson(c));
      return c.json({ data: await reactivate(deps, c.get('auth'), c.req.param('id'), body.retry_last_24h) });
    })
    .get('/webhooks/:id/deliveries', read, async (c) => {
      const query = c.req.query();
      onlyParams(query, ['limit']);
      const limit = intParam(query.limit, 'limit', 1, 200) ?? 50;
      return c.json({ data: await listDeliveries(deps, c.get('auth'), c.req.param('id'), limit) });
    })
    .post('/webhooks/:id/deliveries/:job/retry', write, async (c) => {
      await readNoFields(c);
      return c.json({ data: await retryJob(deps, c.get('auth'), c.req.param('id'), c.req.param('job')) });
    })
    .post(
      '/test_helpers/webhooks',
      endpoint(deps, { resource: 'webhooks', level: 'write', testOnly: true }),
      async (c) => {
        const body = parse(webhookTestSchema, await readJson(c));
        return c.json({ data: await fireTest(deps, c.get('auth'), body.webhook_id, body.event) });
      },
    )
    .post(
      '/test_helpers/listen',
      endpoint(deps, { resource: 'webhooks', level: 'write', testOnly: true }),
      async (c) => {
        await readNoFields(c);
        return c.json({ data: await openListenSession(deps, c.get('auth')) });
      },
    )
    .get(
      '/test_helpers/listen/:id',
      endpoint(deps, { resource: 'webhooks', level: 'read', testOnly: true }),
      async (c) => {
        const query = c.req.query();
        onlyParams(query, ['cursor', 'limit']);
        const limit = intParam(query.limit, 'limit', 1, 200) ?? 100;
        return c.json(
          await collectListenSession(deps, c.get('auth'), c.req.param('id'), query.cursor, limit),
        );
      },
    )
    .delete(
      '/test_helpers/listen/:id',
      endpoint(deps, { resource: 'webhooks', level: 'write', testOnly: true }),
      async (c) => {
        await readNoFields(c);
        return c.json({ data: await closeListenSession(deps, c.get('auth'), c.req.param('id')) });
      },
    );
}
