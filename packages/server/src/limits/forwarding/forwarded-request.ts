import ipaddr from 'ipaddr.js';
import { ApiError } from '../../errors/api-error.js';

/** The header a trusted host sends its project's forwarding secret in. */
export const FORWARDING_SECRET_HEADER = 'debrief-forwarding-secret';
/** The header naming the address of the agent the host forwards for. */
export const FORWARDED_FOR_HEADER = 'debrief-forwarded-for';

/** The two headers as the OpenAPI document describes them, on the ingest operations. */
export const FORWARDING_HEADERS = [
  {
    name: 'Debrief-Forwarding-Secret',
    in: 'header',
    required: false,
    description:
      "Only for a host app that forwards for many agents: a forwarding secret of the project (`wf_…`, made in the dashboard under Keys → Forwarding secrets). With it, the per-address limits count the address in `Debrief-Forwarded-For` instead of the host's. Never give it to agents. An unknown or revoked secret is a 401 `invalid_forwarding_secret`.",
    schema: { type: 'string', pattern: '^wf_[0-9a-f]{48}$' },
  },
  {
    name: 'Debrief-Forwarded-For',
    in: 'header',
    required: false,
    description:
      'With `Debrief-Forwarding-Secret`: the IP address of the agent the host forwards for (required then; ignored without the secret).',
    schema: { type: 'string' },
  },
];

/** What a host that forwards for agents says: its secret, and the agent's address. */
export interface Forwarded {
  secret: string;
  address: string;
}

/**
 * The forwarding headers of a request, or undefined when it has no secret: then the request is
 * its own client's and nothing changes. A secret without a usable agent address is a 400, so a
 * host's mistake is seen at once rather than counting every agent as one unknown address.
 */
export function forwardedOf(
  headers: Record<string, string | string[] | undefined>,
): Forwarded | undefined {
  const secret = headers[FORWARDING_SECRET_HEADER];
  if (secret === undefined) return undefined;
  const raw = headers[FORWARDED_FOR_HEADER];
  const address = typeof raw === 'string' ? raw.trim() : '';
  if (typeof secret !== 'string' || !ipaddr.isValid(address)) {
    throw new ApiError(
      'validation_failed',
      'A request with Debrief-Forwarding-Secret must name the address of the agent it forwards for in Debrief-Forwarded-For (one IPv4 or IPv6 address, sent once), and send the secret once.',
      {
        errors: [
          typeof secret !== 'string'
            ? { field: 'Debrief-Forwarding-Secret', message: 'must be sent once' }
            : { field: 'Debrief-Forwarded-For', message: 'must be one IP address' },
        ],
      },
    );
  }
  return { secret, address };
}

export function invalidForwardingSecret(): ApiError {
  return new ApiError(
    'invalid_forwarding_secret',
    "Debrief-Forwarding-Secret is not an active forwarding secret of the project this ingest key belongs to (mistyped, revoked, or another project's); nothing was stored. Copy the current secret from the dashboard (Keys → Forwarding secrets) into the host app, or send the request without the Debrief-Forwarding headers.",
  );
}
