import { createTheme, type MantineColor, type MantineThemeOverride } from '@mantine/core';
import type { ThemeId } from '@shiptrail/contract';

// Colour themes A to H (product rules §1, §9). Each has a primary colour and an accent used in gradients and highlights.
export interface ThemeDef {
  id: ThemeId;
  name: string;
  primary: MantineColor;
  accent: MantineColor;
  /** Swatch for the theme picker and the browser chrome. */
  swatch: [string, string];
}

export const THEMES: ThemeDef[] = [
  { id: 'A', name: 'Harbor', primary: 'indigo', accent: 'cyan', swatch: ['#364fc7', '#22b8cf'] },
  { id: 'B', name: 'Lagoon', primary: 'teal', accent: 'lime', swatch: ['#099268', '#82c91e'] },
  { id: 'C', name: 'Twilight', primary: 'violet', accent: 'pink', swatch: ['#6741d9', '#f06595'] },
  { id: 'D', name: 'Atlantic', primary: 'blue', accent: 'teal', swatch: ['#1971c2', '#20c997'] },
  { id: 'E', name: 'Orchid', primary: 'grape', accent: 'orange', swatch: ['#9c36b5', '#ff922b'] },
  { id: 'F', name: 'Sunset', primary: 'orange', accent: 'red', swatch: ['#d9480f', '#fa5252'] },
  { id: 'G', name: 'Evergreen', primary: 'green', accent: 'yellow', swatch: ['#2b8a3e', '#fab005'] },
  { id: 'H', name: 'Graphite', primary: 'dark', accent: 'blue', swatch: ['#343a40', '#339af0'] },
];

export function themeDef(id: string | null | undefined): ThemeDef {
  return THEMES.find((t) => t.id === id) ?? THEMES[0]!;
}

export function buildTheme(id: string | null | undefined): MantineThemeOverride {
  const t = themeDef(id);
  return createTheme({
    primaryColor: t.primary,
    // Shade 7 keeps white text on filled buttons above 4.5:1 for every palette (orange and teal included).
    primaryShade: { light: 7, dark: 8 },
    autoContrast: true,
    defaultRadius: 'md',
    cursorType: 'pointer',
    fontFamily: 'Inter, ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
    headings: {
      fontFamily: 'Inter, ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
      fontWeight: '700',
    },
    other: { accent: t.accent, themeName: t.name },
    components: {
      Button: { defaultProps: { fw: 600 } },
      Paper: { defaultProps: { withBorder: true, radius: 'lg' } },
      Card: { defaultProps: { withBorder: true, radius: 'lg' } },
      Modal: { defaultProps: { radius: 'lg', centered: true } },
      // Every Select, Autocomplete and the like opens its list from the field's left edge (decision 094). The
      // default, centred under the field, is placed before the list takes the field's width: for a moment it
      // sticks out to the right, a phone widens its layout viewport to fit, a full-screen modal widens with it,
      // and the list chases the field in a loop, half off the screen, so a tap on an option misses.
      Combobox: { defaultProps: { position: 'bottom-start' } },
      // The same loop on every other floating layer (the account menu opens 'bottom-end' from the header's right
      // edge): placed against the viewport (fixed), a layer that sticks out for a moment does not widen the page.
      Popover: { defaultProps: { floatingStrategy: 'fixed' } },
    },
  });
}

const THEME_KEY = 'shiptrail.theme';
export function rememberTheme(id: string) {
  try {
    localStorage.setItem(THEME_KEY, id);
  } catch {
    /* ignore */
  }
}
export function rememberedTheme(): string | null {
  try {
    return localStorage.getItem(THEME_KEY);
  } catch {
    return null;
  }
}
