// A fake of the four carriers' HTTP APIs on loopback, for exercising the adapters through the real HTTP path
// (OAuth included). Responses are scripted per tracking number; request checks follow carrier notes §7.
import http from 'node:http';
import { onLoopback } from '../loopback.ts';
import { gzipSync } from 'node:zlib';

export type Carrier = 'ups' | 'usps' | 'fedex' | 'canadapost';

export type Scripted = {
  status: number;
  body: string | Buffer;
  headers?: Record<string, string>;
  /** Serve this whole body for a FedEx batch instead of concatenating per-number results. */
  whole?: boolean;
  gzip?: boolean;
  delayMs?: number;
};

export const CREDS = { id: 'test-client', secret: 'test-secret', user: 'cp-user', pass: 'cp-pass' };

export type FakeCarrier = {
  url: string;
  script(carrier: Carrier, tid: string, r: Scripted): void;
  /** Override the token endpoint of a carrier (e.g. an OAuth error body). */
  scriptToken(carrier: Carrier, r: Scripted | null): void;
  /** Forget every issued token, as if the carrier revoked them: the next track call gets a 401. */
  revokeTokens(): void;
  tokenRequests: Record<Carrier, number>;
  trackRequests: Record<Carrier, number>;
  /** When each Canada Post track request arrived (ms since the epoch): quota checks across processes. */
  canadapostTrackTimes: number[];
  /** Sizes of the FedEx batches received. */
  fedexBatchSizes: number[];
  /** Last request headers per carrier track call. */
  lastHeaders: Partial<Record<Carrier, http.IncomingHttpHeaders>>;
  reset(): void;
  close(): Promise<void>;
};

const notFound: Record<Carrier, (tid: string) => Scripted> = {
  ups: (tid) => ({
    status: 200,
    body: JSON.stringify({
      trackResponse: { shipment: [{ inquiryNumber: tid, warnings: [{ code: 'TW0001', message: 'Tracking Information Not Found' }] }] },
    }),
  }),
  usps: () => ({
    status: 400,
    body: JSON.stringify({
      apiVersion: '/tracking/v3',
      error: { code: '400', message: 'not found', errors: [{ code: '150001', title: 'not found' }] },
    }),
  }),
  fedex: (tid) => ({
    status: 200,
    body: JSON.stringify({
      output: {
        completeTrackResults: [
          {
            trackingNumber: tid,
            trackResults: [
              {
                trackingNumberInfo: { trackingNumber: tid },
                error: { code: 'TRACKING.TRACKINGNUMBER.NOTFOUND', message: 'Tracking number cannot be found.' },
              },
            ],
          },
        ],
      },
    }),
  }),
  canadapost: () => ({
    status: 404,
    body: '<?xml version="1.0" encoding="UTF-8"?><messages xmlns="http://www.canadapost.ca/ws/messages"><message><code>004</code><description>No Pin History</description></message></messages>',
  }),
};

export async function startFakeCarrier(): Promise<FakeCarrier> {
  const scripts = new Map<string, Scripted>();
  const tokenScripts = new Map<Carrier, Scripted>();
  let tokens = new Set<string>();
  let seq = 0;
  const zero = (): Record<Carrier, number> => ({ ups: 0, usps: 0, fedex: 0, canadapost: 0 });
  const state = {
    tokenRequests: zero(),
    trackRequests: zero(),
    fedexBatchSizes: [] as number[],
    canadapostTrackTimes: [] as number[],
    lastHeaders: {} as FakeCarrier['lastHeaders'],
  };

  function issue(): string {
    const t = `tok-${++seq}-${Math.random().toString(36).slice(2)}`;
    tokens.add(t);
    return t;
  }

  function send(res: http.ServerResponse, r: Scripted): void {
    const go = () => {
      if (res.destroyed) return;
      let body = typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body;
      const headers: Record<string, string> = { 'content-type': 'application/json', ...r.headers };
      if (r.gzip) {
        body = gzipSync(body);
        headers['content-encoding'] = 'gzip';
      }
      headers['content-length'] = String(body.length);
      res.writeHead(r.status, headers);
      res.end(body);
    };
    if (r.delayMs) setTimeout(go, r.delayMs);
    else go();
  }

  function json(res: http.ServerResponse, status: number, body: unknown): void {
    send(res, { status, body: JSON.stringify(body) });
  }

  function bearerOk(req: http.IncomingMessage): boolean {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    return !!m && tokens.has(m[1]!);
  }

  function basicOk(req: http.IncomingMessage, user: string, pass: string): boolean {
    return req.headers.authorization === 'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64');
  }

  async function readBody(req: http.IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  function scripted(carrier: Carrier, tid: string): Scripted {
    return scripts.get(`${carrier}:${tid}`) ?? notFound[carrier](tid);
  }

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname;
      const body = await readBody(req);

      // ---- tokens ----
      const tokenCarrier: Carrier | null =
        req.method === 'POST' && path === '/security/v1/oauth/token'
          ? 'ups'
          : req.method === 'POST' && path === '/oauth2/v3/token'
            ? 'usps'
            : req.method === 'POST' && path === '/oauth/token'
              ? 'fedex'
              : null;
      if (tokenCarrier) {
        state.tokenRequests[tokenCarrier]++;
        const override = tokenScripts.get(tokenCarrier);
        if (override) return send(res, override);
        const form = new URLSearchParams(body);
        if (form.get('grant_type') !== 'client_credentials') return json(res, 400, { error: 'unsupported_grant_type' });
        if (tokenCarrier === 'ups') {
          if (!basicOk(req, CREDS.id, CREDS.secret))
            return json(res, 401, { response: { errors: [{ code: '250002', message: 'Invalid Authentication Information.' }] } });
          return json(res, 200, {
            token_type: 'Bearer',
            issued_at: String(Date.now()),
            client_id: CREDS.id,
            access_token: issue(),
            scope: '',
            expires_in: '14399',
            refresh_count: '0',
            status: 'approved',
          });
        }
        if (form.get('client_id') !== CREDS.id || form.get('client_secret') !== CREDS.secret) {
          return json(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed.' });
        }
        if (tokenCarrier === 'usps')
          return json(res, 200, {
            access_token: issue(),
            token_type: 'Bearer',
            issued_at: Date.now(),
            expires_in: 28799,
            status: 'approved',
            scope: 'addresses tracking',
          });
        return json(res, 200, { access_token: issue(), token_type: 'bearer', expires_in: 3599, scope: 'CXS-TP' });
      }

      // ---- UPS ----
      let m = /^\/api\/track\/v1\/details\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && m) {
        state.trackRequests.ups++;
        state.lastHeaders.ups = req.headers;
        if (!bearerOk(req))
          return json(res, 401, { response: { errors: [{ code: '250002', message: 'Invalid Authentication Information.' }] } });
        if (!req.headers.transid || !req.headers.transactionsrc)
          return json(res, 400, { response: { errors: [{ code: 'TV0001', message: 'Missing transId' }] } });
        return send(res, scripted('ups', decodeURIComponent(m[1]!)));
      }

      // ---- USPS v3 ----
      m = /^\/tracking\/v3\/tracking\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && m) {
        state.trackRequests.usps++;
        state.lastHeaders.usps = req.headers;
        if (!bearerOk(req))
          return json(res, 401, {
            apiVersion: '/tracking/v3',
            error: { code: '401', message: 'The client application identifier is invalid.', errors: [] },
          });
        if (url.searchParams.get('expand') !== 'DETAIL') return json(res, 400, { error: { code: '400', message: 'expand', errors: [] } });
        return send(res, scripted('usps', decodeURIComponent(m[1]!)));
      }
      // ---- USPS v3r2 (array in, array out) ----
      if (req.method === 'POST' && path === '/tracking/v3r2/tracking') {
        state.trackRequests.usps++;
        if (!bearerOk(req)) return json(res, 401, { apiVersion: '/tracking/v3r2', error: { code: '401', message: 'invalid', errors: [] } });
        const list = JSON.parse(body) as Array<{ trackingNumber: string }>;
        const first = scripts.get(`usps:${list[0]?.trackingNumber}`);
        if (first?.whole) return send(res, first);
        const parts = list.map((x) => {
          const s = scripted('usps', x.trackingNumber);
          const parsed = JSON.parse(String(s.body)) as Record<string, unknown>;
          return s.status === 200 ? parsed : { trackingNumber: x.trackingNumber, statusCode: String(s.status), ...parsed };
        });
        return json(res, 200, parts);
      }

      // ---- FedEx ----
      if (req.method === 'POST' && path === '/track/v1/trackingnumbers') {
        state.trackRequests.fedex++;
        state.lastHeaders.fedex = req.headers;
        if (!bearerOk(req))
          return json(res, 401, {
            transactionId: 'x',
            errors: [{ code: 'NOT.AUTHORIZED.ERROR', message: 'Access token expired. Please modify your request and try again.' }],
          });
        const reqBody = JSON.parse(body) as {
          includeDetailedScans?: boolean;
          trackingInfo?: Array<{ trackingNumberInfo: { trackingNumber: string } }>;
        };
        const info = reqBody.trackingInfo ?? [];
        state.fedexBatchSizes.push(info.length);
        if (reqBody.includeDetailedScans === undefined || info.length < 1 || info.length > 30) {
          return json(res, 400, {
            transactionId: 'x',
            errors: [{ code: 'TRACKING.TRACKINGNUMBER.EMPTY', message: 'Please provide tracking number.' }],
          });
        }
        const tids = info.map((i) => i.trackingNumberInfo.trackingNumber);
        const each = tids.map((t) => scripted('fedex', t));
        const special = each.find((s) => s.status !== 200 || s.whole || s.gzip || s.delayMs || typeof s.body !== 'string');
        if (special) return send(res, special);
        const complete = each.flatMap((s) => {
          try {
            const j = JSON.parse(String(s.body)) as { output?: { completeTrackResults?: unknown[] } };
            return j.output?.completeTrackResults ?? [];
          } catch {
            return [];
          }
        });
        return json(res, 200, { transactionId: 'fake', output: { completeTrackResults: complete } });
      }

      // ---- Canada Post ----
      m = /^\/vis\/track\/(pin|dnc)\/([^/]+)\/detail$/.exec(path);
      if (req.method === 'GET' && m) {
        state.trackRequests.canadapost++;
        state.canadapostTrackTimes.push(Date.now());
        state.lastHeaders.canadapost = req.headers;
        const xmlErr = (code: string, d: string) =>
          `<?xml version="1.0" encoding="UTF-8"?><messages xmlns="http://www.canadapost.ca/ws/messages"><message><code>${code}</code><description>${d}</description></message></messages>`;
        if (!basicOk(req, CREDS.user, CREDS.pass))
          return send(res, {
            status: 401,
            body: xmlErr('E002', 'AAA Authentication Failure'),
            headers: { 'content-type': 'application/xml' },
          });
        if (req.headers.accept !== 'application/vnd.cpc.track-v2+xml')
          return send(res, { status: 406, body: xmlErr('E001', 'Unsupported media type'), headers: { 'content-type': 'application/xml' } });
        const s = scripted('canadapost', decodeURIComponent(m[2]!));
        return send(res, { headers: { 'content-type': 'application/vnd.cpc.track-v2+xml' }, ...s });
      }

      json(res, 404, { error: 'no such route' });
    } catch (err) {
      json(res, 500, { error: String(err) });
    }
  });

  const loopback = await onLoopback(server);

  return {
    url: loopback.url,
    script(carrier, tid, r) {
      scripts.set(`${carrier}:${tid}`, r);
    },
    scriptToken(carrier, r) {
      if (r) tokenScripts.set(carrier, r);
      else tokenScripts.delete(carrier);
    },
    revokeTokens() {
      tokens = new Set();
    },
    get tokenRequests() {
      return state.tokenRequests;
    },
    get trackRequests() {
      return state.trackRequests;
    },
    get canadapostTrackTimes() {
      return state.canadapostTrackTimes;
    },
    get fedexBatchSizes() {
      return state.fedexBatchSizes;
    },
    get lastHeaders() {
      return state.lastHeaders;
    },
    reset() {
      scripts.clear();
      tokenScripts.clear();
      state.tokenRequests = zero();
      state.trackRequests = zero();
      state.fedexBatchSizes = [];
      state.canadapostTrackTimes = [];
      state.lastHeaders = {};
    },
    close: loopback.close,
  };
}
