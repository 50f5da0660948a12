import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ApiError } from '../errors/api-error.js';

/**
 * Refuses, at create and update, a destination URL whose host is a private, loopback,
 * link-local or otherwise non-public address written as a literal (or `localhost`), with an
 * error that says how to allow it. The address a name resolves to is checked on every
 * delivery instead, on the connection itself (guarded-post.ts): a name's answer can change.
 */
export function assertPublicDestinationUrl(url: string, allowPrivate: boolean): void {
  if (allowPrivate) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const named = host === 'localhost' || host.endsWith('.localhost');
  const literal = isIP(host) !== 0 ? ipaddr.process(host) : null;
  if (named || (literal && literal.range() !== 'unicast')) {
    throw new ApiError(
      'validation_failed',
      `The destination URL's host ${JSON.stringify(host)} is a private, loopback or link-local address, which a destination may not reach. Use a public address, or ask the operator to set ALLOW_PRIVATE_DESTINATIONS=true for receivers on the server's own network.`,
      { errors: [{ field: 'url', message: 'must be a public address' }] },
    );
  }
}
