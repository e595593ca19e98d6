// Plan the day (issue 30; decision 118): a company's open shipments of a day shared among its couriers, each
// courier's stops in order with an arrival time and a window for the customer.
import { z } from 'zod';
import { MSG } from './messages.ts';
import { emailField } from './common.ts';
import { timeOfDay } from './shipments.ts';

export const PLAN_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
export const planDate = () =>
  z
    .string({ error: MSG.planDateFormat })
    .trim()
    .regex(PLAN_DATE, MSG.planDateFormat)
    .refine(
      (s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s),
      MSG.planDateFormat,
    );

/** The defaults a plan request may change (decision 118). */
export const PLAN_DEFAULTS = {
  serviceMinutes: 5,
  seconds: 2,
  shiftStart: '08:00',
  shiftEnd: '18:00',
  /** The customer's window: the arrival time to the nearest 5 minutes, this many minutes either side. */
  windowHalfMinutes: 30,
} as const;
export const PLAN_LIMITS = { maxSeconds: 10, maxServiceMinutes: 120, maxCapacity: 10_000 } as const;

const shiftInOrder = (v: { shiftStart?: string; shiftEnd?: string }) => !v.shiftStart || !v.shiftEnd || v.shiftStart < v.shiftEnd;

/** The settings of a plan: every field optional, the defaults above. */
const planSettingsObject = z.object({
  /** Minutes spent at each stop. */
  serviceMinutes: z
    .number({ error: 'serviceMinutes must be a number of minutes' })
    .int('serviceMinutes must be a whole number of minutes')
    .min(0, 'serviceMinutes cannot be negative')
    .max(PLAN_LIMITS.maxServiceMinutes, `serviceMinutes is at most ${PLAN_LIMITS.maxServiceMinutes}`)
    .optional(),
  /** How long the planner may think, in seconds. */
  seconds: z
    .number({ error: 'seconds must be a number' })
    .min(0.1, 'seconds is at least 0.1')
    .max(PLAN_LIMITS.maxSeconds, `seconds is at most ${PLAN_LIMITS.maxSeconds}`)
    .optional(),
  /** Every courier's shift, local times of the company's time zone. */
  shiftStart: timeOfDay().optional(),
  shiftEnd: timeOfDay().optional(),
  /** Parcels a courier carries at most; left out, no limit. */
  capacity: z
    .number({ error: 'capacity must be a number of parcels' })
    .int('capacity must be a whole number of parcels')
    .min(1, 'capacity is at least 1 parcel')
    .max(PLAN_LIMITS.maxCapacity, `capacity is at most ${PLAN_LIMITS.maxCapacity}`)
    .optional(),
  /** Where routes start and end; left out, the origin most of the day's shipments share. */
  depot: z
    .object({
      lat: z.number({ error: 'depot.lat must be a number' }).min(-90).max(90),
      long: z.number({ error: 'depot.long must be a number' }).min(-180).max(180),
    })
    .optional(),
  /** Plan for these couriers only (emails); left out, every courier of the company. */
  couriers: z.array(z.string().pipe(emailField)).max(200).optional(),
});
export const planSettings = planSettingsObject.refine(shiftInOrder, { message: MSG.planShiftOrder, path: ['shiftEnd'] });

/** POST /v1/plans */
export const createPlanRequest = planSettingsObject
  .extend({ date: planDate() })
  .refine(shiftInOrder, { message: MSG.planShiftOrder, path: ['shiftEnd'] });
export type CreatePlanRequest = z.input<typeof createPlanRequest>;
/** POST /v1/plans/{date}/replan: settings left out keep the plan's. */
export const replanRequest = planSettings;
export const planParams = z.object({ date: planDate() });
export const planStopParams = z.object({ date: planDate(), tid: z.string().trim().min(1).max(64) });

/** PATCH /v1/plans/{date}/stops/{tid}: lock or unlock a stop, or move it to a courier and/or position. */
export const patchPlanStopRequest = z
  .object({
    locked: z.boolean({ error: 'locked must be true or false' }).optional(),
    /** The courier to move the stop to (their email); left out, the same courier. */
    courierEmail: z.string().pipe(emailField).optional(),
    /** The new place in the courier's route, 1 first; left out, the end (another courier) or where it is. */
    position: z
      .number({ error: 'position must be a number' })
      .int('position must be a whole number')
      .min(1, 'position starts at 1')
      .optional(),
  })
  .refine((v) => v.locked !== undefined || v.courierEmail !== undefined || v.position !== undefined, {
    message: 'Say what to change: locked, courierEmail or position',
    path: ['locked'],
  });

const point = z.object({ lat: z.number(), long: z.number() });
export const planStopSchema = z.object({
  tid: z.string(),
  /** The shipment's status now. */
  status: z.string(),
  /**
   * Delivered or attempted today (decision 137): the stop heads its route with the time it was done as its eta, and
   * cannot be moved, locked or given to another courier (give the shipment to a courier again to plan it anew).
   */
  done: z.boolean(),
  /** 1 first. */
  position: z.number().int(),
  /** Start of service (ISO-8601 UTC). */
  eta: z.string(),
  /** The window the customer is told. */
  windowFrom: z.string(),
  windowTo: z.string(),
  /** Kept in place, with the stops before it, when the day is planned again. */
  locked: z.boolean(),
  /** After a move by hand: the arrival misses the shipment's own window or the shift. */
  late: z.boolean(),
  at: point,
  /** "address1, city" for the list. */
  address: z.string(),
  name: z.string(),
  /** The shipment's own window (HH:MM), if any. */
  shipmentWindow: z.object({ from: z.string().nullable(), to: z.string().nullable() }),
});
export type PlanStop = z.infer<typeof planStopSchema>;

export const UNPLANNED_REASONS = ['window', 'capacity', 'no-position'] as const;
export const planRouteSchema = z.object({
  courierUid: z.string(),
  courier: z.string(),
  courierEmail: z.string(),
  stops: z.array(planStopSchema),
  /** Leaving the depot and back at it (ISO-8601 UTC). */
  start: z.string(),
  end: z.string(),
  distanceKm: z.number(),
});
export type PlanRoute = z.infer<typeof planRouteSchema>;

export const planViewSchema = z.object({
  date: z.string(),
  timeZone: z.string(),
  depot: point,
  settings: z.object({
    serviceMinutes: z.number(),
    seconds: z.number(),
    shiftStart: z.string(),
    shiftEnd: z.string(),
    capacity: z.number().nullable(),
    /** 'roads': times from the routing server (OSRM); 'straight-line': the distance estimate at an average speed. */
    travel: z.enum(['roads', 'straight-line']),
  }),
  /** One per courier planned for, also those with no stop. */
  routes: z.array(planRouteSchema),
  unplanned: z.array(
    z.object({
      tid: z.string(),
      reason: z.enum(UNPLANNED_REASONS),
      /** The reason for a person. */
      message: z.string(),
      address: z.string(),
      at: point.nullable(),
    }),
  ),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type PlanView = z.infer<typeof planViewSchema>;

export const UNPLANNED_MESSAGES: Record<(typeof UNPLANNED_REASONS)[number], string> = {
  window: 'No courier can reach it within its delivery window and their shift: widen the window or the shift, or add a courier',
  capacity: "It has more parcels than any courier's van has room left for: raise the capacity or add a courier",
  'no-position': 'The address has no map position: edit the destination so it can be placed on the map',
};
