// Solomon's VRPTW text format (also Gehring and Homberger's): a name, VEHICLE with NUMBER and CAPACITY, then
// CUSTOMER rows of 7 numbers (id, x, y, demand, ready, due, service); row id 0 is the depot. Distances are
// Euclidean in double precision and travel time equals distance (the rules of the published best solutions).
import type { RoutingProblem } from './types.ts';

export interface SolomonCustomer {
  id: number;
  x: number;
  y: number;
  demand: number;
  ready: number;
  due: number;
  service: number;
}

export interface SolomonInstance {
  name: string;
  vehicles: number;
  capacity: number;
  /** depot first (id 0), then the customers in file order. */
  nodes: SolomonCustomer[];
}

/** Thrown for a file that is not a Solomon instance; the message is one line meant for a person. */
export class SolomonFormatError extends Error {
  override name = 'SolomonFormatError';
}

const COLUMNS = ['CUST NO.', 'XCOORD.', 'YCOORD.', 'DEMAND', 'READY TIME', 'DUE DATE', 'SERVICE TIME'];

export function parseSolomon(text: string): SolomonInstance {
  const lines = text.split(/\r?\n/);
  const fail = (line: number, what: string): never => {
    throw new SolomonFormatError(line > 0 ? `line ${line}: ${what}` : what);
  };
  const nonEmpty = lines.map((l, i) => ({ no: i + 1, text: l.trim() })).filter((l) => l.text !== '');
  if (nonEmpty.length === 0) fail(0, 'the file is empty');
  const name = nonEmpty[0]!.text;
  const vehicleAt = nonEmpty.findIndex((l) => l.text.toUpperCase() === 'VEHICLE');
  if (vehicleAt < 0) fail(0, 'bad header: no VEHICLE section');
  const header = nonEmpty[vehicleAt + 1];
  if (!header || !/^NUMBER\s+CAPACITY$/i.test(header.text)) fail(header?.no ?? 0, 'bad header: expected "NUMBER CAPACITY" after VEHICLE');
  const fleetLine = nonEmpty[vehicleAt + 2];
  if (!fleetLine) fail(0, 'bad header: no vehicle number and capacity');
  const fleet = fleetLine!.text.split(/\s+/);
  if (fleet.length !== 2) fail(fleetLine!.no, `expected 2 columns (NUMBER CAPACITY), found ${fleet.length}`);
  const vehicles = number(fleet[0]!, 'NUMBER', fleetLine!.no);
  const capacity = number(fleet[1]!, 'CAPACITY', fleetLine!.no);
  if (!Number.isInteger(vehicles) || vehicles < 1) fail(fleetLine!.no, `NUMBER must be a positive whole number, not ${fleet[0]}`);
  const customerAt = nonEmpty.findIndex((l) => l.text.toUpperCase() === 'CUSTOMER');
  if (customerAt < 0 || customerAt < vehicleAt) fail(0, 'bad header: no CUSTOMER section after VEHICLE');
  const columns = nonEmpty[customerAt + 1];
  if (!columns || !/^CUST\s+NO\./i.test(columns.text))
    fail(columns?.no ?? 0, 'bad header: expected the column names (CUST NO. XCOORD. ...) after CUSTOMER');
  const nodes: SolomonCustomer[] = [];
  const ids = new Set<number>();
  for (const row of nonEmpty.slice(customerAt + 2)) {
    const f = row.text.split(/\s+/);
    if (f.length !== 7) fail(row.no, `expected 7 columns (${COLUMNS.join(', ')}), found ${f.length}`);
    const v = f.map((x, i) => number(x, COLUMNS[i]!, row.no));
    const [id, x, y, demand, ready, due, service] = v as [number, number, number, number, number, number, number];
    if (!Number.isInteger(id) || id < 0) fail(row.no, `CUST NO. must be a whole number, not ${f[0]}`);
    if (ids.has(id)) fail(row.no, `customer ${id} appears twice`);
    if (demand < 0 || service < 0) fail(row.no, 'DEMAND and SERVICE TIME may not be negative');
    if (due < ready) fail(row.no, `DUE DATE ${due} is before READY TIME ${ready}`);
    ids.add(id);
    nodes.push({ id, x, y, demand, ready, due, service });
  }
  if (nodes.length === 0 || nodes[0]!.id !== 0) fail(0, 'no depot: the first CUSTOMER row must be customer 0');
  return { name, vehicles, capacity, nodes };

  function number(text: string, field: string, line: number): number {
    const n = Number(text);
    if (text === '' || !Number.isFinite(n)) fail(line, `${field} is not a number: "${text}"`);
    return n;
  }
}

export function euclidean(a: SolomonCustomer, b: SolomonCustomer): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/** The instance as a routing problem: location i is nodes[i]; stop ids are the customer numbers. */
export function solomonProblem(inst: SolomonInstance): RoutingProblem {
  const size = inst.nodes.length;
  const matrix = new Float64Array(size * size);
  for (let i = 0; i < size; i++) for (let j = 0; j < size; j++) matrix[i * size + j] = euclidean(inst.nodes[i]!, inst.nodes[j]!);
  const depot = inst.nodes[0]!;
  return {
    travel: { size, time: matrix },
    vehicles: Array.from({ length: inst.vehicles }, (_, k) => ({
      id: `v${k + 1}`,
      start: 0,
      end: 0,
      capacity: inst.capacity,
      shiftStart: depot.ready,
      shiftEnd: depot.due,
    })),
    stops: inst.nodes
      .slice(1)
      .map((c, i) => ({ id: String(c.id), location: i + 1, demand: c.demand, service: c.service, ready: c.ready, due: c.due })),
  };
}
