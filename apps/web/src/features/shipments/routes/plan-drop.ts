// Dragging a stop on Plan the day (issue 30): what a drop means for PATCH /v1/plans/{date}/stops/{tid}.
import type { PlanView } from '@shiptrail/contract';

/** The id of a route's own drop target (its end; the only target of an empty route): the prefix, then the courier's email. */
export const ROUTE_ID = 'route:';

/** What a drop means: the stop's new courier and place (1 first; undefined: the end of the route). */
export function dropTarget(
  plan: PlanView,
  tid: string,
  overId: string,
  below: boolean,
): { courierEmail: string; position?: number; sameRoute: boolean } | null {
  const from = plan.routes.find((r) => r.stops.some((s) => s.tid === tid));
  const to = overId.startsWith(ROUTE_ID)
    ? plan.routes.find((r) => r.courierEmail === overId.slice(ROUTE_ID.length))
    : plan.routes.find((r) => r.stops.some((s) => s.tid === overId));
  if (!from || !to) return null;
  if (from === to) {
    // Within a route the list shows the stop taking the place of the one it is over.
    if (overId === tid || overId.startsWith(ROUTE_ID)) return null;
    return { courierEmail: to.courierEmail, position: to.stops.findIndex((s) => s.tid === overId) + 1, sameRoute: true };
  }
  if (overId.startsWith(ROUTE_ID)) return { courierEmail: to.courierEmail, sameRoute: false };
  const at = to.stops.findIndex((s) => s.tid === overId) + 1 + (below ? 1 : 0);
  return { courierEmail: to.courierEmail, position: at, sameRoute: false };
}
