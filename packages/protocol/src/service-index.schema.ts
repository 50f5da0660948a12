import { z } from 'zod';
import { Outcome } from './report.schema.js';

/**
 * What `GET /` answers to `Accept: application/json`: the instance's front door for an agent
 * given only its URL. The resources it can read next, one line each, and the five outcomes a
 * report can carry.
 */
export const ServiceIndex = z.object({
  name: z.string(),
  description: z.string(),
  resources: z.array(
    z.object({
      /** Stable handle: `skill`, `llms`, `openapi`, `docs`, `submit_report`, `read_api`, `dashboard`. */
      name: z.string(),
      url: z.string(),
      /** Media type of what the URL answers (or takes, for `submit_report`). */
      type: z.string(),
      description: z.string(),
    }),
  ),
  outcomes: z.array(z.object({ value: Outcome, description: z.string() })),
});
export type ServiceIndex = z.infer<typeof ServiceIndex>;
