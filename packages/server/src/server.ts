import type { FastifyInstance } from 'fastify';
import { createApp } from './app.js';
import { buildContext } from './build-context.js';
import type { Config } from './config.js';
import { createLogger } from './logger.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /** Stops accepting, ends event streams, lets in-flight requests finish, closes the database. */
  stop(): Promise<void>;
}

export async function startServer(config: Config): Promise<RunningServer> {
  const log = createLogger(config);
  const ctx = await buildContext(config, log);
  const app = await createApp(ctx, { logger: log });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await ctx.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  log.info(
    { url, database: ctx.database.dialect, publicUrl: config.publicUrl },
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
