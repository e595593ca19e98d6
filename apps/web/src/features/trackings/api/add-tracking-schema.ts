import { z } from 'zod';
import { addTrackingRequest } from '@shiptrail/contract';

/** The contract's add-tracking rules; the form's courier select also holds 'auto' (detect), sent as null. */
export const addTrackingForm = addTrackingRequest.extend({ courier: z.string() });
