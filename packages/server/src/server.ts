import type { FastifyInstance } from 'fastify';
import { createApp } from './app.js';
import { buildContext } from './build-context.js';
import type { Config } from './config.js';
import { StartupError } from './errors/startup-error.js';
import { createLogger } from './logger.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /** Stops accepting, ends event streams, lets in-flight requests finish, closes the database. */
  stop(): Promise<void>;
}

/** The listen errors an operator fixes in PORT or HOST, as a StartupError that says how. */
function listenError(config: Config, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const where = `${config.host}:${config.port}`;
  const fixes: Record<string, string> = {
    EADDRINUSE: `${where} is already in use. Stop what listens there, or set PORT to a free port`,
    EACCES: `listening on ${where} is not permitted (ports below 1024 need privileges). Set PORT to 1024 or above`,
    EADDRNOTAVAIL: `${config.host} is not an address of this machine. Set HOST to one of its addresses, 127.0.0.1 or 0.0.0.0`,
  };
  const fix = code ? fixes[code] : undefined;
  return fix ? new StartupError(`Cannot listen: ${fix}.`, { cause: error }) : error;
}

export async function startServer(config: Config): Promise<RunningServer> {
  const log = createLogger(config);
  const ctx = await buildContext(config, log);
  const app = await createApp(ctx, { logger: log });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await ctx.close();
    throw listenError(config, error);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const sqlite = ctx.database.dialect === 'sqlite';
  log.info(
    {
      url,
      database: ctx.database.dialect,
      ...(sqlite ? { sqliteSync: config.sqliteSync } : {}),
      publicUrl: config.publicUrl,
    },
    `Debrief is listening on ${url}`,
  );
  let stopping: Promise<void> | null = null;
  return {
    app,
    url,
    stop() {
      stopping ??= (async () => {
        await app.close();
        await ctx.close();
        log.info('Debrief stopped');
      })();
      return stopping;
    },
  };
}
