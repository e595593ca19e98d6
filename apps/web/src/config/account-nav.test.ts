import { describe, expect, it } from 'vitest';
import { THEME_IDS } from '@shiptrail/contract';
import { accountNav } from './account-nav';
import { THEMES, themeDef } from './themes';

describe('account menu by role (product rules §6)', () => {
  it('gives couriers the dashboard only (shipments come later)', () => {
    expect(accountNav({ role: 'courier', userType: 'company' }).map((i) => i.label)).toEqual(['Dashboard']);
  });
  it('hides SHM System and Couriers until those features exist', () => {
    const labels = accountNav({ role: 'owner', userType: 'company' }).map((i) => i.label);
    expect(labels).toContain('Trackings');
    expect(labels).not.toContain('SHM System');
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
