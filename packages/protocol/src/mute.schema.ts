import { z } from 'zod';
import { Id32 } from './issue.schema.js';
import { WireTimestamp } from './report.schema.js';

/**
 * Muting: an issue sends no notification (`issue.regressed`, `issue.spiking`, …) to one
 * destination, or to all of the project's, for a time, until it has had a number of further
 * reports, or until it is unmuted. With both `hours` and `reports`, whichever comes first ends it.
 */
export const CreateMuteBody = z
  .object({
    /** Only this destination; absent or null: every destination of the project. */
    destination_id: Id32.nullable().optional(),
    /** "for 24 h": muted for this many hours. */
    hours: z
      .number()
      .int()
      .min(1)
      .max(24 * 365)
      .optional(),
    /** "until it happens 10 more times": muted until the issue has this many more reports. */
    reports: z.number().int().min(1).max(1_000_000).optional(),
  })
  .strict();
export type CreateMuteBody = z.infer<typeof CreateMuteBody>;

export const Mute = z.object({
  id: Id32,
  issue_id: Id32,
  destination_id: Id32.nullable(),
  /** When it ends by time; null: not by time. */
  until: WireTimestamp.nullable(),
  /** It ends when the issue's `report_count` reaches this; null: not by count. */
  until_count: z.number().int().nullable(),
  /** Whether it silences the issue now (false once its time or count is reached). */
  active: z.boolean(),
  created_at: WireTimestamp,
});
export type Mute = z.infer<typeof Mute>;

export const MuteList = z.object({ data: z.array(Mute) });
export type MuteList = z.infer<typeof MuteList>;
