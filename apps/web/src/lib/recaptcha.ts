import { useEffect } from 'react';
import { MSG } from '@shiptrail/contract';
import { ApiError } from './api-client';

/** The part of Google's reCAPTCHA v2 JavaScript API that the invisible widget uses. */
interface Grecaptcha {
  ready(cb: () => void): void;
  render(
    container: HTMLElement,
    params: {
      sitekey: string;
      size: 'invisible';
      badge?: string;
      callback: (token: string) => void;
      'error-callback'?: () => void;
      'expired-callback'?: () => void;
    },
  ): number;
  execute(widgetId?: number): void;
  reset(widgetId?: number): void;
}
declare global {
  interface Window {
    grecaptcha?: Grecaptcha;
  }
}

interface WebConfig {
  recaptcha: { siteKey: string; scriptUrl: string } | null;
}

// A person may need time to solve a challenge; after this the form says the check failed and can be resent.
const CHALLENGE_TIMEOUT_MS = 3 * 60_000;

let configPromise: Promise<WebConfig> | null = null;
let widget: Promise<{ api: Grecaptcha; id: number }> | null = null;
let pending: { resolve: (token: string) => void; reject: (e: Error) => void } | null = null;

const failed = () => new ApiError(MSG.recaptchaFailed, 400, null);

/** The server's run-time settings for the web app, fetched once per page load. */
function webConfig(): Promise<WebConfig> {
  configPromise ??= fetch('/web-config.json', { headers: { accept: 'application/json' } })
    .then((r) => (r.ok ? (r.json() as Promise<WebConfig>) : { recaptcha: null }))
    .catch(() => {
      configPromise = null;
      return { recaptcha: null };
    });
  return configPromise;
}

function loadWidget(siteKey: string, scriptUrl: string) {
  widget ??= new Promise<{ api: Grecaptcha; id: number }>((resolve, reject) => {
    const script = document.createElement('script');
    const url = new URL(scriptUrl, window.location.href);
    // Explicit rendering: the widget is created by us, invisible, on first use.
    url.searchParams.set('render', 'explicit');
    script.src = url.toString();
    script.async = true;
    script.onerror = () => {
      widget = null;
      script.remove();
      reject(failed());
    };
    script.onload = () => {
      const api = window.grecaptcha;
      if (!api) return reject(failed());
      api.ready(() => {
        const holder = document.createElement('div');
        document.body.appendChild(holder);
        const id = api.render(holder, {
          sitekey: siteKey,
          size: 'invisible',
          callback: (token) => {
            pending?.resolve(token);
            pending = null;
          },
          'error-callback': () => {
            pending?.reject(failed());
            pending = null;
          },
          'expired-callback': () => {
            pending?.reject(failed());
            pending = null;
          },
        });
        resolve({ api, id });
      });
    };
    document.head.appendChild(script);
  });
  return widget;
}

/**
 * A reCAPTCHA token for the next sign-up, login or contact request; '' when the server has no site key
 * (then it checks nothing and nothing is loaded). Google's script is loaded on first use, not with the page.
 */
export async function recaptchaToken(): Promise<string> {
  const { recaptcha } = await webConfig();
  if (!recaptcha) return '';
  const { api, id } = await loadWidget(recaptcha.siteKey, recaptcha.scriptUrl);
  pending?.reject(failed());
  const token = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      pending = null;
      reject(failed());
    }, CHALLENGE_TIMEOUT_MS);
    pending = {
      resolve: (t) => {
        clearTimeout(timer);
        resolve(t);
      },
      reject: (e) => {
        clearTimeout(timer);
        reject(e);
      },
    };
  });
  // A token is good for one verification: start each request from a fresh widget.
  api.reset(id);
  api.execute(id);
  return token;
}

/** Start loading the widget when a protected form appears, so the submit does not wait for the script. */
export function usePreloadRecaptcha() {
  useEffect(() => {
    void webConfig().then(({ recaptcha }) =>
      recaptcha ? loadWidget(recaptcha.siteKey, recaptcha.scriptUrl).catch(() => undefined) : undefined,
    );
  }, []);
}
