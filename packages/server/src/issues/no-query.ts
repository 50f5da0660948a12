import { z } from 'zod';

/** The query of an endpoint that takes no parameters: any one is refused by name. */
export const NoQuery = z.object({});
