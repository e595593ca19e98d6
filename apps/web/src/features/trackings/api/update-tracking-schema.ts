import { z } from 'zod';
import { updateTrackingRequest } from '@shiptrail/contract';

/**
 * The contract's update rules for the edit form: the tid is not a form field (the tracking is fixed) and the
 * courier select holds a slug, or '' when the tracking has none yet (then it is not sent).
 */
export const updateTrackingForm = updateTrackingRequest.omit({ tid: true }).extend({ courier: z.string() });
