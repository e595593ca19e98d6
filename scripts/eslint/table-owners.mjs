// Each table of apps/server/src/db/schema.ts has one owner: the module (or infrastructure file) whose
// repository holds its statements (decision 124; docs/ARCHITECTURE.md, "Tables and their owners").
// `npm run lint` fails when a file outside the owner names the table: by importing its schema object, through
// `schema.<table>`, or in raw SQL (from / join / into / update <table>). Paths are relative to apps/server/src.
//
// `crossings` lists the uses that are outside the owner today, each with its reason: statements assembled across
// owners in one place that says so (the one-statement add), and reads not yet moved behind their owner's service.
// The list may only shrink: a new crossing fails lint until it is moved to the owner, or added here with a reason.

/** table name -> owner path prefix (a module folder, or one infrastructure file). */
export const TABLE_OWNERS = {
  users: 'modules/accounts/',
  sessions: 'modules/accounts/',
  email_keys: 'modules/accounts/',
  oauth_states: 'modules/accounts/',
  messages: 'modules/accounts/',
  referrals: 'modules/accounts/',
  alerts: 'modules/alerts/',
  courier_invitations: 'modules/members/',
  courier_positions: 'modules/members/',
  ledger_entries: 'modules/billing/',
  billing_accounts: 'modules/billing/',
  payments: 'modules/billing/',
  sandbox_sales: 'modules/billing/',
  dev_outbox: 'modules/mail/',
  trackings: 'modules/trackings/',
  checkpoints: 'modules/trackings/',
  delivery_days: 'modules/trackings/',
  exception_scans: 'modules/trackings/',
  open_heard_days: 'modules/trackings/',
  carrier_subscriptions: 'modules/trackings/',
  tracking_events: 'modules/trackings/',
  idempotency_keys: 'lib/idempotency.repository.ts',
  notifications: 'modules/notifications/',
  webhook_attempts: 'modules/notifications/',
  shipments: 'modules/shipments/',
  company_logos: 'modules/shipments/',
  shipment_parcels: 'modules/shipments/',
  shipment_checkpoints: 'modules/shipments/',
  courier_days: 'modules/shipments/',
  delivery_plans: 'modules/planning/',
  plan_stops: 'modules/planning/',
  rate_limit_slots: 'modules/carriers/',
  rate_limit_windows: 'lib/shared-rate-limit-store.ts',
};

const ASSEMBLED = 'the one-statement add/charge, assembled in one place across owners (decision 091)';
const ACCOUNT_ROW = 'reads the account row (plan, company, time zone) its statements need; to move behind the accounts service';

/** table -> { file: reason } for the uses outside the owner that are known and explained. */
export const CROSSINGS = {
  users: {
    'modules/billing/billing.repository.ts': ACCOUNT_ROW,
    'modules/billing/payments.repository.ts': ACCOUNT_ROW,
    'modules/billing/payments.ts': ACCOUNT_ROW,
    'modules/members/invitations.repository.ts': 'creates the courier account when an invitation is accepted, in its transaction',
    'modules/members/members.repository.ts': 'members are users of role courier: the team is rows of users',
    'modules/notifications/fanout.ts': 'joins the account (settings, company) to each status change it fans out',
    'modules/notifications/notifications.repository.ts': ACCOUNT_ROW,
    'modules/shipments/shipments.repository.ts': 'joins the courier (a user) to its shipments',
    'modules/trackings/trackings.repository.ts': ASSEMBLED,
  },
  sessions: { 'modules/billing/payments.repository.ts': 'revokes sessions when a chargeback closes an account (decision 116)' },
  referrals: { 'modules/billing/payments.repository.ts': 'pays the referral reward with the payment that earns it (decision 110)' },
  alerts: { 'modules/billing/payments.ts': `${ASSEMBLED}: the low-balance alert of the charging statement` },
  dev_outbox: { 'modules/sms/sms.service.ts': 'SMS without Twilio go to the dev outbox, as mail does' },
  trackings: {
    'lib/metrics.ts': 'counts trackings due for the metrics gauge',
    'modules/accounts/accounts.repository.ts': 'dashboard counts by status',
    'modules/notifications/fanout.ts': 'joins the tracking to the status change it fans out',
    'modules/notifications/notifications.repository.ts': 'joins the tracking to its notifications',
  },
  notifications: { 'lib/metrics.ts': 'counts waiting notifications for the metrics gauge' },
  shipments: {
    'modules/planning/planning.repository.ts': "reads the day's open shipments and their destinations to plan them (decision 118)",
    'modules/accounts/accounts.repository.ts': 'dashboard counts of shipments',
    'modules/members/members.repository.ts': "a removed courier's shipments are unassigned in the same transaction",
    'modules/notifications/fanout.ts': "joins the shipment's customer to a status change",
    'modules/notifications/notifications.repository.ts': "joins the shipment's customer to its notifications",
  },
  tracking_events: {
    'modules/notifications/fanout.ts': 'reads the status changes it fans out',
    'modules/notifications/notifications.repository.ts': 'reads the status change of a notification',
    'modules/shipments/shipments.repository.ts': "records a shipment's status changes as tracking events, one event model",
  },
  rate_limit_windows: {
    'lib/attempts.repository.ts': 'sign-in attempts use the shared windows table',
    'modules/carriers/rate-limit.repository.ts': 'carrier quotas use the shared windows table',
  },
};

const SQL_VERB = /\b(?:from|join|into|update)\s+"?([a-z_]+)"?/gi;

/** The ESLint rule: `shiptrail/table-owner`. */
export const tableOwnerRule = {
  meta: {
    type: 'problem',
    docs: { description: 'A table is named only in its owning module (scripts/eslint/table-owners.mjs)' },
    schema: [],
  },
  create(context) {
    const file = context.filename.replace(/\\/g, '/');
    const at = file.indexOf('apps/server/src/');
    if (at < 0) return {};
    const rel = file.slice(at + 'apps/server/src/'.length);
    if (rel === 'db/schema.ts' || /\.test\.ts$/.test(rel)) return {};
    // schema.ts's variable names -> table names (users -> users, emailKeys -> email_keys, ...).
    const toTable = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const check = (node, table, how) => {
      const owner = TABLE_OWNERS[table];
      if (!owner || rel.startsWith(owner) || CROSSINGS[table]?.[rel]) return;
      context.report({
        node,
        message: `The table ${table} belongs to ${owner} (${how} here): call its owner's service, or record the crossing with its reason in scripts/eslint/table-owners.mjs.`,
      });
    };
    return {
      ImportDeclaration(node) {
        if (!/db\/schema(\.ts)?$/.test(node.source.value)) return;
        for (const s of node.specifiers)
          if (s.type === 'ImportSpecifier' && !node.importKind?.includes('type') && s.importKind !== 'type')
            check(s, toTable(s.imported.name), 'imported');
      },
      MemberExpression(node) {
        if (node.object.type === 'Identifier' && node.object.name === 'schema' && node.property.type === 'Identifier')
          check(node, toTable(node.property.name), 'schema.' + node.property.name);
      },
      TemplateLiteral(node) {
        for (const q of node.quasis) for (const m of q.value.raw.matchAll(SQL_VERB)) if (TABLE_OWNERS[m[1]]) check(node, m[1], 'in SQL');
      },
    };
  },
};
