// The planning tests' day: a depot in Santa Monica, unassigned shipments around it, a company with couriers, and a
// stored plan. One copy for plan, plan-follows and plan-replan (issue 28: they each had their own).
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { planUpdatesSettled } from '../../src/modules/planning/planning.service.ts';
import { call } from '../helpers.ts';
import { company, courier, createShipment, readmeShipment } from '../shipments/fixtures.ts';

export const DEPOT = { lat: 34.032016, long: -118.482805 };

/** An unassigned shipment for `date` to a point `i` around the depot (a few km), with optional overrides. */
export function planStop(date: string, i: number, over: Record<string, unknown> = {}) {
  const { courier: _c, courierEmail: _e, ...rest } = readmeShipment();
  const angle = (i * 2 * Math.PI) / 12;
  const km = 2 + (i % 4) * 1.5;
  return {
    ...rest,
    unassigned: true,
    orderId: `ORD-${i}`,
    expected: `${date}T12:00:00Z`,
    destination: {
      ...rest.destination,
      address1: `${100 + i} Ocean Ave`,
      lat: DEPOT.lat + (km / 111) * Math.sin(angle),
      long: DEPOT.long + (km / 92) * Math.cos(angle),
    },
    ...over,
  };
}

/** A stop of a stored plan as GET /v1/plans/:date returns it (the fields the planning tests read). */
export interface PlanStop {
  tid: string;
  status: string;
  position: number;
  done: boolean;
  eta: string;
  windowFrom: string;
  windowTo: string;
  locked: boolean;
  late: boolean;
}
export interface PlanRoute {
  courierEmail: string;
  end: string;
  stops: PlanStop[];
}
export interface Plan {
  routes: PlanRoute[];
  unplanned: { tid: string }[];
  updatedAt: string;
}

/** A company with three signed-in couriers. */
export async function companyWithCouriers(app: FastifyInstance) {
  const c = await company(app);
  const ks = [await courier(app, c.session), await courier(app, c.session), await courier(app, c.session)];
  return { c, ks };
}

/** A company with three couriers and `count` shipments of `date`, planned (0.3 s of solving) and settled. */
export async function plannedDay(app: FastifyInstance, date: string, count = 9) {
  const { c, ks } = await companyWithCouriers(app);
  for (let i = 0; i < count; i++) await createShipment(app, c.session, planStop(date, i));
  const r = await call(app, 'POST', '/v1/plans', { token: c.session, body: { date, seconds: 0.3 } });
  expect(r.statusCode, JSON.stringify(r.body)).toBe(201);
  await planUpdatesSettled();
  return { c, ks, plan: r.body.payload as Plan };
}
