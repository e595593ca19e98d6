import type { PublicBrand } from '../api/get-public-tracking';

/** Only a plain colour (hex or rgb) from the company's settings reaches a style attribute. */
export function safeBrandColor(c: string | null | undefined): string | null {
  const v = (c ?? '').trim();
  if (/^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(v)) return v;
  if (/^rgba?\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*(?:,\s*(?:0|1|0?\.\d+)\s*)?\)$/i.test(v)) return v;
  return null;
}

/** Only web addresses for the logo and the company's site (no javascript: or data: links). */
export function safeBrandUrl(u: string | null | undefined): string | null {
  const v = (u ?? '').trim();
  if (!v) return null;
  if (v.startsWith('/') && !v.startsWith('//')) return v;
  try {
    const url = new URL(v);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** A brand worth showing: one with a name. */
export const hasBrand = (b: PublicBrand | null | undefined): b is PublicBrand => !!b && typeof b.name === 'string' && b.name.trim() !== '';
