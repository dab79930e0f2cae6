import { Hono } from 'hono';
import { ApiError } from './errors.js';
import { createErrorHandler, errorResponse, setErrorDocsOrigin } from './http/error-handler.js';
import { publishableCors } from './middleware/cors.js';
import { PreflightOrigins } from './middleware/origin.js';
import { requestContext } from './middleware/request-context.js';
import { apiDocsRoutes } from './routes/api-docs.js';
import { collectionsRoutes } from './routes/collections.js';
import { configFastPath, fetchWithFastPath } from './routes/config-fast-path.js';
import { directoryRoutes } from './routes/directory.js';
import { draftRoutes } from './routes/drafts.js';
import { elementsRoutes } from './routes/elements.js';
import { eventRoutes } from './routes/events.js';
import { invoiceRoutes } from './routes/invoices.js';
import { mcpRoutes } from './routes/mcp.js';
import { meRoutes } from './routes/me.js';
import { outboxRoutes } from './routes/outbox.js';
import { previewFastPath } from './routes/preview-fast-path.js';
import { publicInvoiceRoutes } from './routes/public-invoice.js';
import { publicQuoteRoutes } from './routes/public-quote.js';
import { quoteRoutes } from './routes/quotes.js';
import { sellerDemoRoutes } from './routes/seller-demo.js';
import { setupPlanRoutes } from './routes/setup-plans.js';
import { setupReviewRoutes } from './routes/setup-review.js';
import { staticRoutes } from './routes/static.js';
import { submissionFastPath } from './routes/submission-fast-path.js';
import { taskRoutes } from './routes/tasks.js';
import { testModeRoutes } from './routes/test-mode.js';
import { webhookRoutes } from './routes/webhooks.js';
import { fetchWithWidgetFastPath, type WidgetFromMemory } from './routes/widget-fast-path.js';
import { workflowRoutes } from './routes/workflows.js';
import { ElementsConfigCache } from './services/elements-config.js';
import { PreviewCatalog } from './services/preview-catalog.js';
import { VisitorCounters } from './services/visitor-counters.js';
import type { AppDeps, AppEnv } from './types.js';

/** Builds the HTTP app: middleware, routes, the error handler and the 404 handler. */
export function createApp(deps: AppDeps) {
  setErrorDocsOrigin(deps.config.publicUrl);
  const app = new Hono<AppEnv>();
  app.use('*', requestContext());
  // CORS only where publishable keys may call: the widget's operations and quote creation.
  const cors = publishableCors(new PreflightOrigins(deps.db));
  app.use('/api/v1/elements/*', cors);
  // Quote creation only (and its preflight): the list on the same path, by GET or HEAD, is a
  // secret-key operation, with no CORS.
  app.use('/api/v1/cotizaciones', (c, next) => {
    const creation =
      c.req.method === 'POST' ||
      (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method')?.toUpperCase() === 'POST');
    return creation ? cors(c, next) : next();
  });
  const configs = new ElementsConfigCache(deps.db, deps.keys);
  // The basket preview's allowances and catalog, in this process's memory (routes/elements.ts).
  const previewMemory = {
    counters: new VisitorCounters(deps.db, deps.logger),
    catalog: new PreviewCatalog(deps.db, deps.keys),
  };

  const api = new Hono<AppEnv>()
    .route('/', meRoutes(deps))
    // Before the quote routes: /cotizaciones/ia must not be read as a quote id.
    .route('/', draftRoutes(deps))
    .route('/', quoteRoutes(deps))
    .route('/', directoryRoutes(deps))
    .route('/', invoiceRoutes(deps))
    .route('/', setupPlanRoutes(deps))
    .route('/', eventRoutes(deps))
    .route('/', outboxRoutes(deps))
    .route('/', webhookRoutes(deps))
    .route('/', elementsRoutes(deps, configs, previewMemory))
    .route('/', taskRoutes(deps))
    .route('/', workflowRoutes(deps))
    .route('/', collectionsRoutes(deps));
  // Public: the description of the API needs no key.
  app.route('/', apiDocsRoutes(deps));
  app.route('/api/v1', api);
  app.route('/api/test-mode', testModeRoutes(deps));
  app.route(
    '/',
    mcpRoutes(deps, (request, env) => app.fetch(request, env)),
  );
  app.route('/', publicQuoteRoutes(deps));
  app.route('/', publicInvoiceRoutes(deps));
  app.route('/', setupReviewRoutes(deps));
  app.route('/', sellerDemoRoutes(deps));
  app.route('/', staticRoutes(deps, { demoKeysFile: deps.config.demoKeysFile }));

  app.notFound((c) =>
    errorResponse(c, new ApiError(404, 'not_found', `No route for ${c.req.method} ${c.req.path}.`)),
  );
  app.onError(createErrorHandler(deps.logger));

  // Every page view asks for the configuration: answered from memory before routing when it can
  // be (see config-fast-path.ts), through the full pipeline otherwise.
  // The HTTP server puts it in front of its listener too (listenerWithFastPath).
  const configFromMemory = configFastPath(deps.keys, configs, deps.now);
  // The widget's basket preview and submission likewise, when memory holds its key
  // (widget-fast-path.ts).
  const previewFromMemory = previewFastPath(deps, previewMemory);
  const submissionFromMemory = submissionFastPath(deps);
  const widgetFromMemory: WidgetFromMemory = (request) =>
    previewFromMemory(request) ?? submissionFromMemory(request);
  const route = app.fetch;
  app.fetch = fetchWithFastPath(configFromMemory, fetchWithWidgetFastPath(widgetFromMemory, route));
  // `fetchThroughPipeline` skips both: what the fast paths' tests compare them with.
  // `close` sends the counts still in memory; call it once no more requests come, before the
  // database closes.
  return Object.assign(app, {
    configFromMemory,
    previewFromMemory,
    submissionFromMemory,
    widgetFromMemory,
    previewMemory,
    fetchThroughPipeline: route,
    close: () => previewMemory.counters.close(),
  });
}

export type App = ReturnType<typeof createApp>;
