import { describe, expect, it } from 'vitest';
import { THEME_IDS } from '@shiptrail/contract';
import { accountNav, courierMayOpen } from './account-nav';
import { THEMES, themeDef } from './themes';

describe('account menu by role (product rules §6)', () => {
  it('gives couriers their own menu: their day, their shipments, their account and support', () => {
    const nav = accountNav({ role: 'courier', userType: 'company' });
    expect(nav.map((i) => i.label)).toEqual(['Today', 'My shipments', 'My account', 'Support']);
    expect(nav.map((i) => i.to)).toEqual(['/account/dashboard', '/account/shipments', '/account/me', '/account/support']);
    // Every page of the courier's menu is one a courier may open.
    expect(nav.every((i) => courierMayOpen(i.to))).toBe(true);
  });
  it("keeps couriers out of the owner's pages", () => {
    for (const path of [
      '/account/dashboard',
      '/account',
      '/account/shipments',
      '/account/shipments/map',
      '/account/me',
      '/account/support',
    ])
      expect(courierMayOpen(path), path).toBe(true);
    for (const path of [
      '/account/trackings',
      '/account/couriers',
      '/account/couriers/map',
      '/account/invite',
      '/account/notifications',
      '/account/alerts',
      '/account/init',
      '/account/print',
      '/account/profile/settings',
      '/account/profile/settings/apiKey',
      '/account/profile/settings/paymentHistory',
      '/account/profile/invoice/abc',
      '/account/shipmentsx',
      '/account/dashboard/x',
    ])
      expect(courierMayOpen(path), path).toBe(false);
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
