import { Webhook } from 'standardwebhooks';
import type { GuardedPoster } from './guarded-post.js';
import type { Channel } from './notification-port.js';

/**
 * A webhook signed per Standard Webhooks, with the `standardwebhooks` package: `webhook-id`
 * (the message's, the same on every attempt), `webhook-timestamp` (this attempt's) and
 * `webhook-signature`, one `v1,…` per secret: the current one, and after a rotation the
 * previous one too for its 24 h, so a receiver still holding it verifies meanwhile.
 */
export function webhookChannel(poster: GuardedPoster): Channel {
  return async (target, message) => {
    if (!target.url) return { ok: false, error: 'the destination has no URL' };
    const secrets = target.secrets ?? [];
    if (secrets.length === 0) return { ok: false, error: 'the destination has no secret' };
    const body = JSON.stringify(message.payload);
    const signatures = secrets.map((secret) =>
      new Webhook(secret).sign(message.id, message.timestamp, body),
    );
    return poster.postJson(target.url, body, {
      'webhook-id': message.id,
      'webhook-timestamp': String(Math.floor(message.timestamp.getTime() / 1000)),
      'webhook-signature': signatures.join(' '),
    });
  };
}
