// Plan the day's pure parts (decision 118): days and times in the company's time zone, the travel model
// (straight-line distance × road factor at an average speed) and a route's times when a stop is moved by hand.

import { localDate, localMidnight } from '../../lib/time-zone.ts';

export { localDate, localMidnight };

/** Minutes of a "HH:MM" local time. */
export const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The day after `date`. */
export const nextDate = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

export interface Point {
  lat: number;
  long: number;
}

/** Great-circle distance in km. */
export function haversineKm(a: Point, b: Point): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.long - a.long) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}

export interface TravelModel {
  speedKmh: number;
  roadFactor: number;
}

/** Dense matrices over `places`: time in seconds, distance in km (road estimate). */
export function travelMatrix(places: Point[], m: TravelModel): { size: number; time: Float64Array; distance: Float64Array } {
  const size = places.length;
  const time = new Float64Array(size * size);
  const distance = new Float64Array(size * size);
  for (let i = 0; i < size; i++)
    for (let j = 0; j < size; j++) {
      if (i === j) continue;
      const km = haversineKm(places[i]!, places[j]!) * m.roadFactor;
      distance[i * size + j] = km;
      time[i * size + j] = (km / m.speedKmh) * 3600;
    }
  return { size, time, distance };
}

export interface TimedStop {
  service: number;
  ready: number;
  due: number;
}

/** Dense travel over places: time in seconds, distance in km, row-major `size × size`. */
export interface Matrix {
  size: number;
  time: Float64Array;
  distance: Float64Array;
}

/**
 * Start of service at each stop of a route driven from the depot at `start` (seconds after local midnight),
 * waiting for a window to open; `late` when service starts after its due time or the route ends after
 * `shiftEnd`. `m` is over [depot, ...stops]. Used when the owner moves a stop by hand and to check a locked
 * head (the solver's own times are used otherwise).
 */
export function routeTimes(start: number, shiftEnd: number, stops: TimedStop[], m: Matrix) {
  const at = (i: number, j: number) => i * m.size + j;
  let t = start;
  let prev = 0;
  let km = 0;
  const times: { start: number; late: boolean }[] = [];
  stops.forEach((s, k) => {
    t += m.time[at(prev, k + 1)]!;
    km += m.distance[at(prev, k + 1)]!;
    const begin = Math.max(t, s.ready);
    times.push({ start: begin, late: begin > s.due + 1e-6 });
    t = begin + s.service;
    prev = k + 1;
  });
  const end = t + m.time[at(prev, 0)]!;
  km += m.distance[at(prev, 0)]!;
  if (end > shiftEnd + 1e-6 && times.length) times[times.length - 1]!.late = true;
  return { times, end, km };
}

/** The customer's window around an arrival: the arrival to the nearest 5 minutes, `half` minutes either side. */
export function customerWindow(eta: Date, halfMinutes: number): { from: Date; to: Date } {
  const five = 5 * 60_000;
  const mid = Math.round(eta.getTime() / five) * five;
  return { from: new Date(mid - halfMinutes * 60_000), to: new Date(mid + halfMinutes * 60_000) };
}
