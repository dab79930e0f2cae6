import { randomBase62 } from '../ids.js';

/**
 * Marks a request the agent interface makes to the app on a caller's behalf, so that what it does
 * is recorded as `mcp:<key id>` (events) and `origen: "agente"` (quotes). The value is random per
 * process and only ever travels inside it: a request from outside cannot claim to be the agent.
 */
export const MCP_CHANNEL_HEADER = 'x-svc-channel';
export const MCP_CHANNEL_TOKEN = randomBase62(40);
