// The operator's toolkit, as the CLI uses it (and the test harness): accounts, projects, keys.
export { createAccount, ensureAccount, setMonthlyQuota } from './accounts/account.service.js';
export { type AppOptions, createApp } from './app.js';
export { buildContext } from './build-context.js';
export { type Config, ConfigError, loadConfig } from './config.js';
export type { AppContext } from './context.js';
/** The database's tables, for tools that write it directly (the read benchmark's seeder). */
export type { DB } from './db/schema.js';
export { createApiKey, rotateIngestKey } from './keys/key.service.js';
export { createLogger } from './logger.js';
export { createProject, listProjects } from './projects/project.service.js';
export { type RunningServer, startServer } from './server.js';
