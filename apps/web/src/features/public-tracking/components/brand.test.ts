// A company's brand reaches styles and links only as a plain colour and web addresses.
import { describe, expect, it } from 'vitest';
import { hasBrand, safeBrandColor, safeBrandUrl } from './brand';

describe('public page branding', () => {
  it('takes hex and rgb colours only', () => {
    expect(safeBrandColor('#1c7ed6')).toBe('#1c7ed6');
    expect(safeBrandColor('rgb(10, 20, 30)')).toBe('rgb(10, 20, 30)');
    expect(safeBrandColor('red; background: url(x)')).toBeNull();
    expect(safeBrandColor('')).toBeNull();
  });
  it('takes http(s) and same-site addresses only', () => {
    expect(safeBrandUrl('https://acme.example/logo.png')).toBe('https://acme.example/logo.png');
    expect(safeBrandUrl('/v1/brand/logo/u1')).toBe('/v1/brand/logo/u1');
    expect(safeBrandUrl('javascript:alert(1)')).toBeNull();
    expect(safeBrandUrl('//evil.example/x')).toBeNull();
    expect(safeBrandUrl('data:image/png;base64,xx')).toBeNull();
  });
  it('shows a brand only when it has a name', () => {
    expect(hasBrand({ name: 'Acme', logo: '', color: '', url: '' })).toBe(true);
    expect(hasBrand({ name: ' ', logo: '', color: '', url: '' })).toBe(false);
    expect(hasBrand(null)).toBe(false);
  });
});
