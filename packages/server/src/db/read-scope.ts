import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Carries the AbortSignal of the HTTP request being served down to the database driver
 * (routed-dialect.ts), so a read the client no longer waits for is stopped without every
 * service and repository passing a signal along. Set by http/read-cancellation.ts for each
 * request; outside a request (start-up, the CLI, the realtime bus) there is none.
 */
export class ReadScope {
  readonly #storage = new AsyncLocalStorage<AbortSignal>();

  /** Runs `fn` with `signal` as the signal of every read it starts. */
  run<T>(signal: AbortSignal, fn: () => T): T {
    return this.#storage.run(signal, fn);
  }

  /** The signal of the request this code runs for, if any. */
  signal(): AbortSignal | undefined {
    return this.#storage.getStore();
  }
}
