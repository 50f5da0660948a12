import { describe, expect, it } from 'vitest';
import { classifyStorageFault } from '../../src/errors/storage-fault.js';

const withCode = (code: string, message = 'driver error') =>
  Object.assign(new Error(message), { code });

/**
 * The one classifier of storage faults (errors/storage-fault.ts): which driver errors are a
 * 503 the caller may retry, and which stay a 500. The end-to-end tests reach each family for
 * real (postgres-faults.error.test.ts, sqlite-faults.error.test.ts); this pins the table.
 */
describe('classifyStorageFault', () => {
  it.each([
    ['SQLITE_FULL', 'disk'],
    ['SQLITE_IOERR_WRITE', 'disk'],
    ['SQLITE_IOERR', 'disk'],
    ['SQLITE_READONLY', 'disk'],
    ['SQLITE_READONLY_DBMOVED', 'disk'],
    ['SQLITE_CANTOPEN', 'disk'],
    ['SQLITE_NOTADB', 'disk'],
    ['SQLITE_BUSY', 'busy'],
    ['EFBIG', 'disk'],
    ['ENOSPC', 'disk'],
    ['EROFS', 'disk'],
    ['ECONNREFUSED', 'connection'],
    ['ECONNRESET', 'connection'],
    ['57P01', 'connection'],
    ['57P03', 'connection'],
    ['08006', 'connection'],
    ['08P01', 'connection'],
    ['25006', 'connection'],
    ['53300', 'busy'],
    ['53100', 'disk'],
  ])('%s is a %s fault, with a Retry-After', (code, kind) => {
    const fault = classifyStorageFault(withCode(code));
    expect(fault).toMatchObject({ kind, code });
    expect(fault!.retryAfterSeconds).toBeGreaterThan(0);
  });

  it.each([
    ['Connection terminated unexpectedly'],
    ['Connection terminated due to connection timeout'],
    ['timeout exceeded when trying to connect'],
    ['Client has encountered a connection error and is not queryable'],
  ])('pg\'s code-less "%s" is a connection fault', (message) => {
    expect(classifyStorageFault(new Error(message))).toMatchObject({ kind: 'connection' });
  });

  it('looks through causes and AggregateErrors', () => {
    const wrapped = new Error('The report writer could not open x.db', {
      cause: withCode('SQLITE_READONLY'),
    });
    expect(classifyStorageFault(wrapped)).toMatchObject({ code: 'SQLITE_READONLY' });
    const aggregate = new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]);
    expect(classifyStorageFault(aggregate)).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it.each([
    ['a bug', new TypeError('x is undefined')],
    ['a constraint', withCode('SQLITE_CONSTRAINT_PRIMARYKEY')],
    ['a unique violation', withCode('23505')],
    ['a syntax error', withCode('42601')],
    ['not an error', 'SQLITE_FULL'],
    ['nothing', null],
  ])('%s stays a 500', (_what, error) => {
    expect(classifyStorageFault(error)).toBeNull();
  });

  it('stops on a cycle of causes', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });
    expect(classifyStorageFault(a)).toBeNull();
  });
});
