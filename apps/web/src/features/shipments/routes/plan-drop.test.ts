import type { PlanView } from '@shiptrail/contract';
import { describe, expect, it } from 'vitest';
import { dropTarget } from './plan-drop';

const route = (courierEmail: string, tids: string[]) => ({ courierEmail, stops: tids.map((tid) => ({ tid })) });
const plan = {
  routes: [route('a@x.com', ['A1', 'A2', 'A3']), route('b@x.com', ['B1', 'B2']), route('c@x.com', [])],
} as unknown as PlanView;

describe('dropTarget', () => {
  it('within a route: the stop takes the place of the one it is dropped on', () => {
    expect(dropTarget(plan, 'A1', 'A3', false)).toEqual({ courierEmail: 'a@x.com', position: 3, sameRoute: true });
    expect(dropTarget(plan, 'A3', 'A1', true)).toEqual({ courierEmail: 'a@x.com', position: 1, sameRoute: true });
    expect(dropTarget(plan, 'A2', 'A2', false)).toBeNull();
    expect(dropTarget(plan, 'A2', 'route:a@x.com', false)).toBeNull();
  });

  it("onto another courier's route: before the stop it is dropped on, after it below its middle, or at the end", () => {
    expect(dropTarget(plan, 'A2', 'B1', false)).toEqual({ courierEmail: 'b@x.com', position: 1, sameRoute: false });
    expect(dropTarget(plan, 'A2', 'B2', true)).toEqual({ courierEmail: 'b@x.com', position: 3, sameRoute: false });
    expect(dropTarget(plan, 'A2', 'route:c@x.com', false)).toEqual({ courierEmail: 'c@x.com', sameRoute: false });
    expect(dropTarget(plan, 'A2', 'nowhere', false)).toBeNull();
  });
});
