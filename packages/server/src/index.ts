export { type App, createApp } from './app.js';
export { API_VERSION, readConfig, type ServerConfig } from './config.js';
export { ApiError } from './errors.js';
export { createDeps, type RunningServer, startServer } from './server.js';
export type { AppDeps } from './types.js';
export { type VerifyOptions, verifyWebhook } from './webhooks/signing.js';
