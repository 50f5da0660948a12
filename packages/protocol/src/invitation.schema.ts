import { z } from 'zod';
import { Email } from './console.schema.js';
import { WireTimestamp } from './report.schema.js';

/**
 * Invitations: one-time sign-up links the operator makes in the dashboard
 * (`/v1/console/invitations`) or with `debrief invite`. The token is in the link only; the
 * server keeps its SHA-256.
 */

export const INVITATION_DEFAULT_HOURS = 7 * 24;
/** 90 days: a link that lives longer is a standing door, not an invitation. */
export const INVITATION_MAX_HOURS = 90 * 24;

export const CreateInvitationBody = z.object({
  /** When given, only this address can accept it. */
  email: Email.optional(),
  expires_in_hours: z
    .number({ error: 'must be a whole number of hours' })
    .int({ error: 'must be a whole number of hours' })
    .min(1, { error: 'must be at least 1 hour' })
    .max(INVITATION_MAX_HOURS, {
      error: `must be at most ${INVITATION_MAX_HOURS} hours (90 days)`,
    })
    .default(INVITATION_DEFAULT_HOURS),
});
export type CreateInvitationBody = z.input<typeof CreateInvitationBody>;

export const InvitationStatus = z.enum(['pending', 'used', 'expired', 'revoked']);
export type InvitationStatus = z.infer<typeof InvitationStatus>;

export const InvitationInfo = z.object({
  id: z.string(),
  /** null = anyone holding the link may accept it. */
  email: z.string().nullable(),
  status: InvitationStatus,
  created_at: WireTimestamp,
  expires_at: WireTimestamp,
  used_at: WireTimestamp.nullable(),
  revoked_at: WireTimestamp.nullable(),
});
export type InvitationInfo = z.infer<typeof InvitationInfo>;
export const InvitationList = z.array(InvitationInfo);

export const CreatedInvitation = InvitationInfo.extend({
  /** The sign-up link with the token, shown once. */
  url: z.string(),
});
export type CreatedInvitation = z.infer<typeof CreatedInvitation>;
