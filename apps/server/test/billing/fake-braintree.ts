import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { onLoopback } from '../loopback.ts';
import { gzipSync } from 'node:zlib';

/**
 * A fake Braintree gateway on loopback that speaks what the official Node SDK sends and expects, for exactly
 * the calls the Braintree adapter makes: client_token, customers, payment_methods, transactions (sale), find,
 * refund and the two-step transaction search (advanced_search_ids, then advanced_search). The SDK sends JSON
 * with snake_case keys and Basic auth (public:private key), and parses XML replies (gzip when it says so, as
 * Braintree does). Test values follow Braintree's documented sandbox nonces and amounts, the same rules as the
 * built-in sandbox gateway, so one set of behavioural tests runs against both.
 */

interface Card {
  token: string;
  customerId: string;
  bin: string;
  last4: string;
  cardType: string;
  expirationMonth: string;
  expirationYear: string;
  cardholderName: string;
  declines: boolean;
}

export interface FakeTransaction {
  id: string;
  type: 'sale' | 'credit';
  status: string;
  amount: string;
  orderId: string;
  processorResponseCode: string;
  processorResponseText: string;
  gatewayRejectionReason: string | null;
  card: Card;
  createdAt: string;
}

const VALID: Record<string, [string, string, string]> = {
  'fake-valid-nonce': ['Visa', '1881', '401288'],
  'fake-valid-visa-nonce': ['Visa', '1111', '411111'],
  'fake-valid-mastercard-nonce': ['MasterCard', '4444', '555555'],
  'fake-valid-amex-nonce': ['American Express', '0005', '378282'],
  'fake-valid-discover-nonce': ['Discover', '1117', '601111'],
};
const DECLINING: Record<string, [string, string, string]> = {
  'fake-processor-declined-visa-nonce': ['Visa', '1115', '400011'],
  'fake-processor-declined-mastercard-nonce': ['MasterCard', '5100', '510510'],
  'fake-processor-declined-amex-nonce': ['American Express', '1000', '378734'],
  'fake-processor-declined-discover-nonce': ['Discover', '9424', '601100'],
};

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const el = (name: string, value: string | null, type?: string) =>
  value === null ? `<${name} nil="true"/>` : `<${name}${type ? ` type="${type}"` : ''}>${esc(value)}</${name}>`;

function cardXml(c: Card, root = 'credit-card'): string {
  return `<${root}>${[
    el('token', c.token),
    el('customer-id', c.customerId),
    el('bin', c.bin),
    el('last-4', c.last4),
    el('card-type', c.cardType),
    el('expiration-month', c.expirationMonth),
    el('expiration-year', c.expirationYear),
    el('cardholder-name', c.cardholderName),
    el('image-url', `https://assets.braintreegateway.com/payment_method_logo/${c.cardType.toLowerCase().replace(/ /g, '_')}.png`),
    el('default', 'true', 'boolean'),
  ].join('')}</${root}>`;
}

function transactionXml(t: FakeTransaction): string {
  return `<transaction>${[
    el('id', t.id),
    el('type', t.type),
    el('status', t.status),
    el('amount', t.amount),
    el('currency-iso-code', 'USD'),
    el('order-id', t.orderId),
    el('processor-response-code', t.processorResponseCode),
    el('processor-response-text', t.processorResponseText),
    el('gateway-rejection-reason', t.gatewayRejectionReason),
    el('created-at', t.createdAt, 'datetime'),
    el('updated-at', t.createdAt, 'datetime'),
    cardXml(t.card),
  ].join('')}</transaction>`;
}

const errorXml = (message: string, inner = '') =>
  `<api-error-response><errors><errors type="array"/></errors>${el('message', message)}${inner}</api-error-response>`;

export interface FakeBraintree {
  url: string;
  merchantId: string;
  publicKey: string;
  privateKey: string;
  /** The environment that points the app's Braintree adapter here. */
  env: Record<string, string>;
  /** Every transaction made, in order. */
  transactions: FakeTransaction[];
  /** Paths called, in order (e.g. "POST /transactions"). */
  calls: string[];
  /** Delay every reply by this many ms (a slow gateway, for timeout tests). */
  delayMs: number;
  /** A stored card that verified when saved starts to decline (a card gone bad: cancelled, over its limit). */
  declineCard(token: string): void;
  close(): Promise<void>;
}

export async function startFakeBraintree(): Promise<FakeBraintree> {
  const merchantId = `merchant_${randomBytes(4).toString('hex')}`;
  const publicKey = `pub_${randomBytes(4).toString('hex')}`;
  const privateKey = `priv_${randomBytes(8).toString('hex')}`;
  const auth = `Basic ${Buffer.from(`${publicKey}:${privateKey}`).toString('base64')}`;
  const customers = new Map<string, string>();
  const cards = new Map<string, Card>();
  const usedNonces = new Set<string>();
  const transactions: FakeTransaction[] = [];
  const calls: string[] = [];
  const id = () => randomBytes(4).toString('hex');

  const state = { delayMs: 0 };

  function sale(body: Record<string, any>): [number, string] {
    const t = body.transaction ?? {};
    const card = cards.get(String(t.payment_method_token));
    if (!card) return [422, errorXml('Payment method token is invalid.')];
    if (t.type !== 'sale' || t.options?.submit_for_settlement !== true)
      return [422, errorXml('The fake only takes sales submitted for settlement.')];
    const dollars = Number(t.amount);
    let [code, text, status] = ['1000', 'Approved', 'submitted_for_settlement'];
    if (card.declines) [code, text, status] = ['2000', 'Do Not Honor', 'processor_declined'];
    else if (dollars >= 2000 && dollars < 3000)
      [code, text, status] = [String(Math.floor(dollars)), 'Processor Declined', 'processor_declined'];
    else if (dollars >= 3000 && dollars < 3001) [code, text, status] = ['3000', 'Processor Network Unavailable - Try Again', 'failed'];
    const tx: FakeTransaction = {
      id: id(),
      type: 'sale',
      status,
      amount: dollars.toFixed(2),
      orderId: String(t.order_id ?? ''),
      processorResponseCode: code,
      processorResponseText: text,
      gatewayRejectionReason: null,
      card,
      createdAt: new Date().toISOString(),
    };
    transactions.push(tx);
    // Braintree answers an unsuccessful sale with an error response that carries the transaction.
    return status === 'submitted_for_settlement' ? [201, transactionXml(tx)] : [201, errorXml(text, transactionXml(tx))];
  }

  function vault(body: Record<string, any>): [number, string] {
    const pm = body.payment_method ?? {};
    const nonce = String(pm.payment_method_nonce ?? '');
    const holder = customers.get(String(pm.customer_id));
    if (holder === undefined) return [422, errorXml('Customer ID is invalid.')];
    if (nonce === 'fake-consumed-nonce' || usedNonces.has(nonce))
      return [422, errorXml('Cannot use a payment_method_nonce more than once.')];
    if (nonce === 'fake-gateway-rejected-fraud-nonce')
      return [
        422,
        errorXml(
          'Gateway Rejected: fraud',
          `<verification>${el('status', 'gateway_rejected')}${el('gateway-rejection-reason', 'fraud')}</verification>`,
        ),
      ];
    if (nonce === 'fake-luhn-invalid-nonce') return [422, errorXml('Credit card number is invalid.')];
    const known = VALID[nonce] ?? DECLINING[nonce];
    if (!known) return [422, errorXml('Unknown or expired payment_method_nonce.')];
    // options.verify_card: Braintree verifies the card before storing it; a processor-declined card fails here.
    if (pm.options?.verify_card === true && nonce in DECLINING)
      return [
        422,
        errorXml(
          'Do Not Honor',
          `<verification>${el('status', 'processor_declined')}${el('processor-response-code', '2000')}${el('processor-response-text', 'Do Not Honor')}</verification>`,
        ),
      ];
    if (!nonce.startsWith('fake-')) usedNonces.add(nonce);
    const card: Card = {
      token: id(),
      customerId: String(pm.customer_id),
      cardType: known[0],
      last4: known[1],
      bin: known[2],
      expirationMonth: '12',
      expirationYear: String(new Date().getUTCFullYear() + 3),
      cardholderName: holder,
      declines: nonce in DECLINING,
    };
    cards.set(card.token, card);
    return [201, cardXml(card)];
  }

  function route(method: string, path: string, body: Record<string, any>): [number, string] {
    const base = `/merchants/${merchantId}`;
    if (!path.startsWith(base + '/')) return [404, ''];
    const p = path.slice(base.length);
    calls.push(`${method} ${p}`);
    if (method === 'POST' && p === '/client_token')
      return [201, `<client-token>${el('value', `fake_client_token_${id()}`)}</client-token>`];
    if (method === 'POST' && p === '/customers') {
      const c = `cus_${id()}`;
      const cu = body.customer ?? {};
      customers.set(c, `${cu.first_name ?? ''} ${cu.last_name ?? ''}`.trim());
      return [
        201,
        `<customer>${el('id', c)}${el('email', String(cu.email ?? ''))}${el('first-name', String(cu.first_name ?? ''))}${el('last-name', String(cu.last_name ?? ''))}</customer>`,
      ];
    }
    if (method === 'POST' && p === '/payment_methods') return vault(body);
    if (method === 'POST' && p === '/transactions') return sale(body);
    if (method === 'POST' && p === '/transactions/advanced_search_ids') {
      const orderId = body.search?.order_id?.is;
      const ids = transactions.filter((t) => t.orderId === orderId).map((t) => `<item>${esc(t.id)}</item>`);
      return [200, `<search-results>${el('page-size', '50', 'integer')}<ids type="array">${ids.join('')}</ids></search-results>`];
    }
    if (method === 'POST' && p === '/transactions/advanced_search') {
      const ids: string[] = body.search?.ids ?? [];
      const found = transactions.filter((t) => ids.includes(t.id));
      return [
        200,
        `<credit-card-transactions type="collection">${el('current-page-number', '1', 'integer')}${el('page-size', '50', 'integer')}${el('total-items', String(found.length), 'integer')}${found.map(transactionXml).join('')}</credit-card-transactions>`,
      ];
    }
    let m = /^\/transactions\/([^/]+)$/.exec(p);
    if (method === 'GET' && m) {
      const t = transactions.find((x) => x.id === m![1]);
      return t ? [200, transactionXml(t)] : [404, ''];
    }
    m = /^\/transactions\/([^/]+)\/refund$/.exec(p);
    if (method === 'POST' && m) {
      const orig = transactions.find((x) => x.id === m![1]);
      if (!orig) return [404, ''];
      if (orig.status !== 'submitted_for_settlement' && orig.status !== 'settled')
        return [422, errorXml('Cannot refund a transaction unless it is settled.')];
      const amount = body.transaction?.amount ? Number(body.transaction.amount).toFixed(2) : orig.amount;
      const tx: FakeTransaction = {
        ...orig,
        id: id(),
        type: 'credit',
        amount,
        status: 'submitted_for_settlement',
        createdAt: new Date().toISOString(),
      };
      transactions.push(tx);
      return [201, transactionXml(tx)];
    }
    return [404, ''];
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = () => {
        if (req.headers.authorization !== auth) {
          res.writeHead(401).end();
          return;
        }
        let body: Record<string, any>;
        try {
          body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
        } catch {
          res.writeHead(400).end();
          return;
        }
        const [status, xml] = route(req.method ?? 'GET', (req.url ?? '').split('?')[0]!, body);
        if (!xml) {
          res.writeHead(status).end();
          return;
        }
        const text = `<?xml version="1.0" encoding="UTF-8"?>\n${xml}`;
        const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
        const payload = gzip ? gzipSync(text) : Buffer.from(text);
        res.writeHead(status, {
          'content-type': 'application/xml; charset=utf-8',
          ...(gzip ? { 'content-encoding': 'gzip' } : {}),
          'content-length': String(payload.length),
        });
        res.end(payload);
      };
      if (state.delayMs > 0) setTimeout(reply, state.delayMs);
      else reply();
    });
  });
  const loopback = await onLoopback(server);
  const url = loopback.url;
  return {
    url,
    merchantId,
    publicKey,
    privateKey,
    env: {
      BRAINTREE_ENVIRONMENT: 'sandbox',
      BRAINTREE_MERCHANT_ID: merchantId,
      BRAINTREE_PUBLIC_KEY: publicKey,
      BRAINTREE_PRIVATE_KEY: privateKey,
      BRAINTREE_GATEWAY_URL: url,
    },
    transactions,
    calls,
    declineCard(token) {
      const c = cards.get(token);
      if (c) c.declines = true;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v: number) {
      state.delayMs = v;
    },
    close: loopback.close,
  };
}
