import { z } from 'zod';
import { TRACKING_STATUSES } from './constants.ts';

/**
 * A status event as the public views show it: a carrier's tracking and a company's shipment share it (their
 * statuses are one list), so both views are built from this one schema. It lives apart from trackings.ts
 * and shipments.ts because each of those imports the other.
 */
export const checkpointSchema = z.object({
  status: z.enum(TRACKING_STATUSES),
  location: z.string().nullable(),
  message: z.string(),
  time: z.string(),
});
export type Checkpoint = z.infer<typeof checkpointSchema>;
