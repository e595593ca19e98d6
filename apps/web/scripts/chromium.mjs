// How every headless Chromium of ours is started: the E2E runner, the screenshot script and the browser benches.
// The system's Chromium (CI installs the Debian package), or CHROMIUM_PATH.

/** The Chromium binary to drive. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, no sandbox (containers), and nothing that talks to Google on its own. */
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
