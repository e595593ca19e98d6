import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';
import type { MapConfig } from '@shiptrail/contract';
import type { AppContext } from '../context.ts';
import { braintreeConfigured } from '../modules/billing/billing.service.ts';

/** The security headers of every reply, with a content security policy that allows only what is switched on. */
export function securityHeaders(app: FastifyInstance, config: AppContext['config']) {
  // Google's reCAPTCHA script loads the rest of itself from gstatic and shows its challenge in a frame, so
  // those origins are allowed, and only when the web app is told to run it (a site key is set).
  const recaptchaOrigins = recaptchaCspOrigins(config);
  const braintree = braintreeCspOrigins(config);
  // helmet's middleware is built once (its CSP parsed once); @fastify/helmet 13 built it again for every request,
  // 2.5% of the CPU of an add under load.
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        // 'wasm-unsafe-eval': the courier's label scanner compiles its own barcode reader (WebAssembly, served from
        // this site) where the browser has no BarcodeDetector (decision 130). It allows no JavaScript eval.
        scriptSrc: ["'self'", "'wasm-unsafe-eval'", ...recaptchaOrigins, ...braintree.script],
        styleSrc: ["'self'", "'unsafe-inline'", ...braintree.style],
        imgSrc: ["'self'", 'data:', 'https:', ...tileOrigins(config)],
        connectSrc: ["'self'", ...braintree.connect],
        // blob: lets the print page show the label PDF it fetched (with the session header) and print it.
        frameSrc: ["'self'", 'blob:', 'https://www.youtube-nocookie.com', ...recaptchaOrigins, ...braintree.frame],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
  });
  app.addHook('onRequest', (req, reply, done) => securityHeaders(req.raw, reply.raw, (err?: unknown) => done(err as Error | undefined)));
}

/** Security headers helmet sets that apply to documents only (not to the scripts and styles a page loads). */
export const DOCUMENT_ONLY_HEADERS = [
  'content-security-policy',
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'strict-transport-security',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];
/**
 * Braintree's drop-in (bundled in the billing chunk) puts the card fields in frames served by Braintree, loads
 * its stylesheet from there and talks to Braintree's client API; allowed only when Braintree is configured.
 */
function braintreeCspOrigins(config: AppContext['config']): { script: string[]; style: string[]; connect: string[]; frame: string[] } {
  if (!braintreeConfigured(config)) return { script: [], style: [], connect: [], frame: [] };
  const env = config.BRAINTREE_ENVIRONMENT === 'production' ? '' : 'sandbox.';
  return {
    script: ['https://js.braintreegateway.com', 'https://assets.braintreegateway.com'],
    style: ['https://assets.braintreegateway.com'],
    connect: [
      `https://api.${env}braintreegateway.com`,
      `https://client-analytics.${env}braintreegateway.com`,
      `https://payments.${env}braintree-api.com`,
    ],
    frame: ['https://assets.braintreegateway.com'],
  };
}

/** The map's tiles: null when they are off (the web app draws its offline outlines). */
export function mapConfig(config: AppContext['config']): MapConfig {
  const off = config.MAP_TILE_URL.toLowerCase() === 'off';
  return { tileUrl: off ? null : config.MAP_TILE_URL, attribution: config.MAP_ATTRIBUTION };
}

/** Tiles over https are allowed already; a plain-http tile server (a private one) is allowed by its origin. */
function tileOrigins(config: AppContext['config']): string[] {
  const t = mapConfig(config).tileUrl;
  if (!t || !t.startsWith('http:')) return [];
  return [new URL(t.replace(/\{[a-z]\}/g, '0')).origin];
}

function recaptchaCspOrigins(config: AppContext['config']): string[] {
  if (!config.RECAPTCHA_SITE_KEY) return [];
  const origin = new URL(config.RECAPTCHA_SCRIPT_URL).origin;
  return /^https:\/\/www\.(google\.com|recaptcha\.net)$/.test(origin) ? [origin, 'https://www.gstatic.com'] : [origin];
}
