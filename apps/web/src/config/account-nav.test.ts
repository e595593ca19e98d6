import { describe, expect, it } from 'vitest';
import { THEME_IDS } from '@shiptrail/contract';
import { accountNav } from './account-nav';
import { THEMES, themeDef } from './themes';

describe('account menu by role (product rules §6)', () => {
  it('gives couriers Dashboard and Shipments only', () => {
    const nav = accountNav({ role: 'courier', userType: 'company' });
    expect(nav.map((i) => i.label)).toEqual(['Dashboard', 'Shipments']);
    expect(nav.map((i) => i.to)).toEqual(['/account/dashboard', '/account/shipments']);
  });
  it("gives company owners Shipments (the product's SHM System, in words for people) and Couriers", () => {
    const nav = accountNav({ role: 'owner', userType: 'company' });
    expect(nav.find((i) => i.label === 'Shipments')?.to).toBe('/account/shipments');
    expect(nav.map((i) => i.label)).not.toContain('SHM System');
    expect(nav.find((i) => i.label === 'Couriers')?.to).toBe('/account/couriers');
    expect(nav.map((i) => i.label)).toContain('Trackings');
  });
  it('gives person accounts neither Shipments nor Couriers', () => {
    const labels = accountNav({ role: 'owner', userType: 'person' }).map((i) => i.label);
    expect(labels).toContain('Trackings');
    expect(labels).not.toContain('Shipments');
    expect(labels).not.toContain('Couriers');
  });
});

describe('themes', () => {
  it('defines one palette per theme id, A by default', () => {
    expect(THEMES.map((t) => t.id)).toEqual([...THEME_IDS]);
    expect(themeDef('nope').id).toBe('A');
    expect(new Set(THEMES.map((t) => t.primary)).size).toBe(THEMES.length);
  });
});
