import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  findSetting,
  insertSettingIfAbsent,
} from '../../agent-resources/instance-settings.repository.js';
import type { DB } from '../../db/schema.js';

/**
 * The links in a notification email that work without signing in: the token names the project,
 * the destination, the address and (for an issue's email) the issue, and is signed with the
 * instance's link key (HMAC-SHA256), made once and kept in `instance_settings` so every instance
 * and every restart honours the links already sent.
 */
export interface LinkClaims {
  projectId: string;
  destinationId: string;
  address: string;
  issueId?: string;
}

const SETTING = 'notification_link_key';

export async function notificationLinkKey(db: Kysely<DB>): Promise<Buffer> {
  const existing = await findSetting(db, SETTING);
  if (existing) return Buffer.from(existing, 'hex');
  await insertSettingIfAbsent(db, SETTING, randomBytes(32).toString('hex'));
  return Buffer.from((await findSetting(db, SETTING)) ?? '', 'hex');
}

function mac(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update(body).digest();
}

export function signLink(key: Buffer, claims: LinkClaims): string {
  const body = Buffer.from(
    JSON.stringify({
      p: claims.projectId,
      d: claims.destinationId,
      a: claims.address,
      i: claims.issueId,
    }),
  ).toString('base64url');
  return `${body}.${mac(key, body).toString('base64url')}`;
}

/** The claims of a token signed with this key; null for anything else. */
export function verifyLink(key: Buffer, token: string): LinkClaims | null {
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined) return null;
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(key, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const raw = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
    if (typeof raw.p !== 'string' || typeof raw.d !== 'string' || typeof raw.a !== 'string')
      return null;
    return {
      projectId: raw.p,
      destinationId: raw.d,
      address: raw.a,
      ...(typeof raw.i === 'string' ? { issueId: raw.i } : {}),
    };
  } catch {
    return null;
  }
}

export function unsubscribeUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/v1/notifications/unsubscribe?token=${encodeURIComponent(token)}`;
}
