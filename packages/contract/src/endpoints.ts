import { z } from 'zod';
import * as A from './accounts.ts';
import * as T from './trackings.ts';
import * as N from './notifications.ts';
import * as S from './shipments.ts';
import * as M from './members.ts';
import * as I from './invitations.ts';
import * as B from './billing.ts';
import * as G from './geo.ts';
import * as P from './planning.ts';
import { API_TOKEN_HEADER, HTTP_STATUS_HEADER, HTTP_STATUS_REAL } from './constants.ts';

/** The API-wide rules, shown at the top of the OpenAPI document (and so on the /developers page). */
export const API_DESCRIPTION =
  `Track UPS, USPS, FedEx and Canada Post parcels. Authorise every call with your API key in the \`${API_TOKEN_HEADER}\` header. ` +
  'Every response is an envelope {code, status, message, payload} sent with HTTP status 200: the result is in `code` ' +
  '(200 or 201 on success; 400 validation, 401 authorisation, 402 balance, 404 not found, 409 conflict, 429 rate limit, 500 ...) ' +
  `and \`status\` ("success" or "fail"). Send the header \`${HTTP_STATUS_HEADER}: ${HTTP_STATUS_REAL}\` to get the real HTTP status code as well. ` +
  'In request bodies `null` means "not given" for every optional field. Paths work with and without a trailing slash.';

/**
 * The /v1 calls, described once. The server builds its OpenAPI document from this list and a test checks
 * that every registered route is listed; the web's /developers page renders the document.
 */
export interface EndpointDef {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI path form, e.g. /v1/trackings/delete/{tid}. */
  path: string;
  summary: string;
  tag: string;
  auth: boolean;
  body?: z.ZodType;
  query?: z.ZodObject;
  response?: z.ZodType;
}

export const accountEndpoints: EndpointDef[] = [
  {
    method: 'POST',
    path: '/v1/user/general/signup',
    summary: 'Create an account (credits the sign-up bonus)',
    tag: 'Account',
    auth: false,
    body: A.signupRequest,
    response: A.sessionPayloadSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/general/login',
    summary: 'Log in with email and password, a Google code, or ask for a Google sign-in URL',
    tag: 'Account',
    auth: false,
    body: z.union([A.loginPasswordRequest, A.loginCodeRequest, A.loginActionRequest]),
    // A password or Google code logs in; an action asks for the Google sign-in URL.
    response: z.union([A.sessionPayloadSchema, z.object({ 'google-auth-url': z.string() })]),
  },
  { method: 'POST', path: '/v1/user/general/logout', summary: 'End the current web session', tag: 'Account', auth: true },
  { method: 'GET', path: '/v1/user/email/verify/{key}', summary: 'Verify an email address', tag: 'Account', auth: false },
  {
    method: 'GET',
    path: '/v1/user/email/verify/resend',
    summary:
      'Send the activation email again: with a token, to that account; without one, to ?email= (the same answer whether or not such an account exists; limited per client address)',
    tag: 'Account',
    auth: false,
    query: A.resendActivationQuery,
  },
  { method: 'GET', path: '/v1/user/password/recover/{email}', summary: 'Email a password reset link', tag: 'Account', auth: false },
  {
    method: 'POST',
    path: '/v1/user/general/passwordreset',
    summary: 'Set a new password with a reset key',
    tag: 'Account',
    auth: false,
    body: A.passwordResetRequest,
  },
  {
    method: 'POST',
    path: '/v1/user/general/passwordupdate',
    summary: 'Change the password',
    tag: 'Account',
    auth: true,
    body: A.passwordUpdateRequest,
  },
  {
    method: 'GET',
    path: '/v1/user/info',
    summary: 'Profile, dashboard counts, settings and alerts',
    tag: 'Account',
    auth: true,
    response: A.userInfoSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/general/update',
    summary: 'Update the profile and/or settings',
    tag: 'Account',
    auth: true,
    body: A.updateRequest,
    response: A.userInfoSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/general/generatenewtoken',
    summary: 'Replace the API key (the old key stops working at once)',
    tag: 'Account',
    auth: true,
    response: z.object({ token: z.string() }),
  },
  { method: 'POST', path: '/v1/user/general/getintouch', summary: 'Contact form', tag: 'Account', auth: false, body: A.getInTouchRequest },
  {
    method: 'POST',
    path: '/v1/user/general/supportrequest',
    summary: 'Ask support for help',
    tag: 'Account',
    auth: true,
    body: A.supportRequest,
  },
  {
    method: 'POST',
    path: '/v1/user/general/invitefriend',
    summary: 'Invite a friend (you get a reward on their first payment)',
    tag: 'Account',
    auth: true,
    body: A.inviteRequest,
  },
  { method: 'POST', path: '/v1/user/alerts/dismiss/{id}', summary: 'Dismiss an alert', tag: 'Account', auth: true, response: z.null() },
  { method: 'GET', path: '/v1/info/pricing', summary: 'Prices and constants', tag: 'Info', auth: false, response: A.pricingSchema },
];

export const notificationEndpoints: EndpointDef[] = [
  {
    method: 'GET',
    path: '/v1/notifications/log',
    summary: 'Notifications sent for your trackings, newest first, with webhook delivery attempts',
    tag: 'Notifications',
    auth: true,
    query: N.notificationLogQuery,
    response: N.notificationLogSchema,
  },
  {
    method: 'POST',
    path: '/v1/notifications/resend/{id}',
    summary: 'Deliver a webhook notification again (same webhook-id)',
    tag: 'Notifications',
    auth: true,
    response: N.resendResponseSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/webhook/secret/regenerate',
    summary: 'Replace the webhook signing secret (the old one keeps signing for 24 hours)',
    tag: 'Notifications',
    auth: true,
    response: N.webhookSecretSchema,
  },
];

export const trackingEndpoints: EndpointDef[] = [
  {
    method: 'POST',
    path: '/v1/trackings/add',
    summary: 'Add a tracking (detects the courier; charges $0.05; honours an Idempotency-Key header)',
    tag: 'Trackings',
    auth: true,
    body: T.addTrackingRequest,
    response: T.addTrackingResponse,
  },
  {
    method: 'POST',
    path: '/v1/trackings/import',
    summary: 'Add trackings from a CSV file (multipart field "file" or a text/csv body); per-row report; honours an Idempotency-Key header',
    tag: 'Trackings',
    auth: true,
    response: T.importReportSchema,
  },
  {
    method: 'GET',
    path: '/v1/trackings/get',
    summary: 'List trackings, newest first; keyset paging with lastTid; filter by status and courier',
    tag: 'Trackings',
    auth: true,
    query: T.listTrackingsQuery,
    response: T.trackingListSchema,
  },
  {
    method: 'PUT',
    path: '/v1/trackings/update',
    summary: "Update a tracking's details (title, order, customer, notify, note, courier)",
    tag: 'Trackings',
    auth: true,
    body: T.updateTrackingRequest,
    response: T.trackingViewSchema,
  },
  {
    method: 'GET',
    path: '/v1/trackings/delivered/{tid}',
    summary: 'Mark a tracking delivered (stops refreshing)',
    tag: 'Trackings',
    auth: true,
    response: T.trackingViewSchema,
  },
  { method: 'DELETE', path: '/v1/trackings/delete/{tid}', summary: 'Delete a tracking', tag: 'Trackings', auth: true },
  {
    method: 'POST',
    path: '/v1/trackings/refresh/{tid}',
    summary: 'Ask the carrier again now (once a minute per tracking)',
    tag: 'Trackings',
    auth: true,
    response: T.trackingViewSchema,
  },
  {
    method: 'GET',
    path: '/v1/trackings/performance',
    summary:
      'Delivery performance over a period (`from`/`to` days, or the last `days` days): on-time rate, first-attempt success, transit-time distribution by carrier, service and lane, exceptions and their causes, stalled parcels (no scan for `stalledDays` days), your own couriers; `format=csv` for the same figures as a CSV file',
    tag: 'Trackings',
    auth: true,
    query: T.performanceQuery,
    response: T.performanceSchema,
  },
  {
    method: 'POST',
    path: '/v1/couriers/detect',
    summary: 'Candidate couriers for a tracking number, best first',
    tag: 'Trackings',
    auth: false,
    body: T.detectRequest,
    response: T.detectResponse,
  },
  {
    method: 'GET',
    path: '/v1/couriers',
    summary: 'Supported couriers, and whether each is served by the carrier sandbox',
    tag: 'Trackings',
    auth: false,
    response: T.couriersResponse,
  },
  {
    method: 'GET',
    path: '/v1/track/{uidTid}',
    summary: 'Public tracking page data for {uid}_{tid} (no auth; contacts masked); a company\'s SHM shipment answers with kind "shipment"',
    tag: 'Trackings',
    auth: false,
    response: z.array(z.union([T.publicTrackingSchema, S.publicShipmentSchema])),
  },
];

export const memberEndpoints: EndpointDef[] = [
  {
    method: 'POST',
    path: '/v1/user/general/addmember',
    summary: 'Add a courier to your company (company accounts); they sign in with this email and password',
    tag: 'Members',
    auth: true,
    body: M.addMemberRequest,
    response: M.memberViewSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/general/updatemember',
    summary: "Change a courier's email, name or phone (found by uid, else by email)",
    tag: 'Members',
    auth: true,
    body: M.updateMemberRequest,
    response: M.memberViewSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/general/deletemember',
    summary: 'Delete a courier; their shipments stay with the company, unassigned',
    tag: 'Members',
    auth: true,
    body: M.deleteMemberRequest,
  },
  {
    method: 'POST',
    path: '/v1/user/general/getmembers',
    summary: "Your company's couriers, with their last known position",
    tag: 'Members',
    auth: true,
    response: M.memberListSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/general/position',
    summary: 'A courier reports their position (the couriers map)',
    tag: 'Members',
    auth: true,
    body: M.positionRequest,
    response: M.geoSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/general/positions',
    summary:
      "A courier's phone sends the positions it kept without signal, oldest first, at most 500 (decision 149): each kept once with the time it was taken; the newest by takenAt is the last position; honours an Idempotency-Key header",
    tag: 'Members',
    auth: true,
    body: M.positionsRequest,
    response: M.positionsResultSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/general/trail',
    summary: "Where one of the company's couriers went (their positions, oldest first), since a time or over the last 24 hours",
    tag: 'Members',
    auth: true,
    body: M.trailRequest,
    response: M.trailSchema,
  },
  {
    method: 'GET',
    path: '/v1/track/{uidTid}/live',
    summary:
      "Server-sent events of one parcel for its public page (no auth): its number and status each time it changes or gets a checkpoint, and while a shipment is Out For Delivery its courier's position (kind courier: tid, lat, lng, at; at most every 15 s) (reconnect with Last-Event-ID); 20 open streams per address",
    tag: 'Live',
    auth: false,
  },
  {
    method: 'GET',
    path: '/v1/live',
    summary:
      'Server-sent events of your account: tracking and shipment status changes and checkpoints, courier positions, balance and alerts (reconnect with Last-Event-ID)',
    tag: 'Live',
    auth: true,
  },
];

export const shipmentEndpoints: EndpointDef[] = [
  {
    method: 'POST',
    path: '/v1/shipment/create',
    summary:
      'Create a shipment with a new SHM tracking number (company accounts; charges $0.05 like a tracking); payload.tid is the number; honours an Idempotency-Key header',
    tag: 'Shipments',
    auth: true,
    body: S.createShipmentRequest,
    response: S.createShipmentResponse,
  },
  {
    method: 'POST',
    path: '/v1/shipment/update',
    summary:
      'Add a checkpoint and set the status (the company or the assigned courier); proof of delivery with Delivered; occurredAt for a phone that was offline; honours an Idempotency-Key header',
    tag: 'Shipments',
    auth: true,
    body: S.updateShipmentRequest,
    response: S.shipmentViewSchema,
  },
  {
    method: 'POST',
    path: '/v1/shipment/edit',
    summary: "Edit a shipment's addresses, parcels, courier, order id, expected date and note (the company)",
    tag: 'Shipments',
    auth: true,
    body: S.editShipmentRequest,
    response: S.shipmentViewSchema,
  },
  {
    method: 'POST',
    path: '/v1/shipment/getshipments',
    summary: "The company's shipments, newest first; keyset paging with lastTid; filter by status and courier email",
    tag: 'Shipments',
    auth: true,
    body: S.listShipmentsRequest,
    response: S.shipmentListSchema,
  },
  {
    method: 'POST',
    path: '/v1/shipment/getassigned',
    summary: 'The shipments assigned to the calling courier, newest first (same paging and filters)',
    tag: 'Shipments',
    auth: true,
    body: S.listShipmentsRequest,
    response: S.shipmentListSchema,
  },
  {
    method: 'POST',
    path: '/v1/shipment/today',
    summary:
      "The calling courier's day: open assigned shipments oldest first, and how many they delivered and failed since `since` (their local midnight)",
    tag: 'Shipments',
    auth: true,
    body: S.courierDayRequest,
    response: S.courierDaySchema,
  },
  {
    method: 'GET',
    path: '/v1/shipment/proof/{tid}/{checkpointId}',
    summary: "A checkpoint's proof of delivery: recipient's name, signature and photo as data URLs (the company or the assigned courier)",
    tag: 'Shipments',
    auth: true,
    response: S.proofViewSchema,
  },
  {
    method: 'GET',
    path: '/v1/shipment/labels',
    summary:
      'Shipping labels, 4x6 in, one page per shipment (addresses, note, barcode), as one PDF (application/pdf; errors are JSON envelopes)',
    tag: 'Shipments',
    auth: true,
    query: S.labelsQuery,
  },
  {
    method: 'POST',
    path: '/v1/shipment/assign',
    summary: "Assign shipments to one of the company's couriers in one go, all or nothing (the company; at most 500)",
    tag: 'Shipments',
    auth: true,
    body: S.assignShipmentsRequest,
    response: S.shipmentListSchema,
  },
  {
    method: 'POST',
    path: '/v1/shipment/unassign',
    summary: 'Take shipments from their courier, leaving them unassigned, all or nothing (the company; at most 500)',
    tag: 'Shipments',
    auth: true,
    body: S.unassignShipmentsRequest,
    response: S.shipmentListSchema,
  },
  {
    method: 'POST',
    path: '/v1/shipment/markers',
    summary:
      "The shipments map's light list: tid, status, courier and positions of every shipment in the given statuses (open ones by default), paged by tid with afterTid/nextTid",
    tag: 'Shipments',
    auth: true,
    body: S.shipmentMarkersRequest,
    response: S.shipmentMarkersSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/general/logo',
    summary:
      "Upload the company's logo (PNG or JPEG data URL, at most 2 MB); stored re-encoded as a PNG of at most 512 px a side and served from /v1/brand/logo/{uid}",
    tag: 'Shipments',
    auth: true,
    body: S.logoUploadRequest,
    response: S.logoViewSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/general/logo/remove',
    summary: "Remove the company's uploaded logo",
    tag: 'Shipments',
    auth: true,
    response: S.logoViewSchema,
  },
  {
    method: 'GET',
    path: '/v1/brand/logo/{file}',
    summary: "A company's uploaded logo ({uid}.png; image/png; no auth: it shows on public pages and in mails)",
    tag: 'Shipments',
    auth: false,
  },
];

export const planningEndpoints: EndpointDef[] = [
  {
    method: 'POST',
    path: '/v1/plans',
    summary:
      "Plan the day: the company's open shipments expected on `date` (and open ones with no date) shared among its couriers, each route in order with arrival times and a window for the customer; assigns each shipment to its courier; replaces that day's plan; honours an Idempotency-Key header (the company owner)",
    tag: 'Planning',
    auth: true,
    body: P.createPlanRequest,
    response: P.planViewSchema,
  },
  {
    method: 'GET',
    path: '/v1/plans/{date}',
    summary:
      "The plan of a day (YYYY-MM-DD): each courier's ordered stops with times, and what could not be planned with the reason. A shipment created for a planned day, or assigned to or unassigned from a courier, joins the plan by itself just after that call (decision 125)",
    tag: 'Planning',
    auth: true,
    response: P.planViewSchema,
  },
  {
    method: 'POST',
    path: '/v1/plans/{date}/replan',
    summary:
      "Plan the day again from its plan: what is still open, new shipments included; each route's locked stops stay, in order, at its head; settings left out keep the plan's",
    tag: 'Planning',
    auth: true,
    body: P.replanRequest,
    response: P.planViewSchema,
  },
  {
    method: 'PATCH',
    path: '/v1/plans/{date}/stops/{tid}',
    summary:
      "Lock or unlock a stop (a route's locked stops are its head), or move it to another courier and/or position (a moved stop is locked there); the changed routes get new times",
    tag: 'Planning',
    auth: true,
    body: P.patchPlanStopRequest,
    response: P.planViewSchema,
  },
];

export const billingEndpoints: EndpointDef[] = [
  {
    method: 'GET',
    path: '/v1/user/payment/token/generate',
    summary: 'A client token for the card form (Braintree drop-in, or the built-in sandbox gateway)',
    tag: 'Billing',
    auth: true,
    response: B.clientTokenSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/payment/add',
    summary: "Save a card from the card form's one-time nonce (replaces the card on file)",
    tag: 'Billing',
    auth: true,
    body: B.paymentAddRequest,
    response: B.paymentInfoSchema,
  },
  {
    method: 'GET',
    path: '/v1/user/payment/info',
    summary: 'The card on file and the automatic recharge setting',
    tag: 'Billing',
    auth: true,
    response: B.paymentInfoSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/payment/edit',
    summary: 'Set the automatic recharge: amount and the balance under which it happens (whole dollars; 0 turns it off)',
    tag: 'Billing',
    auth: true,
    body: B.paymentEditRequest,
    response: B.paymentInfoSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/general/addbalance',
    summary: 'Charge the card on file and add the amount to the balance (whole dollars); honours an Idempotency-Key header',
    tag: 'Billing',
    auth: true,
    body: B.addBalanceRequest,
    response: B.addBalanceResponse,
  },
  {
    method: 'GET',
    path: '/v1/user/payment/history',
    summary: 'Card payments, newest first',
    tag: 'Billing',
    auth: true,
    response: z.array(B.paymentHistoryItemSchema),
  },
  {
    method: 'GET',
    path: '/v1/user/payment/receipt/{id}',
    summary: 'The receipt of a succeeded payment',
    tag: 'Billing',
    auth: true,
    response: B.receiptSchema,
  },
  {
    method: 'GET',
    path: '/v1/user/payment/receipt/{id}/pdf',
    summary: 'The receipt as a PDF (invoice.pdf, landscape)',
    tag: 'Billing',
    auth: true,
  },
  {
    method: 'POST',
    path: '/v1/user/general/getusage',
    summary: 'Usage per day between two dates: trackings and SMS, their costs and the total',
    tag: 'Billing',
    auth: true,
    body: B.usageRequest,
    response: z.array(B.usageRecordSchema),
  },
];

export const geoEndpoints: EndpointDef[] = [
  {
    method: 'GET',
    path: '/v1/user/geo/lookup',
    summary: "The place of a US ZIP or Canadian postal code: city, state and coordinates (the address form's autofill)",
    tag: 'Geo',
    auth: true,
    query: G.geoLookupQuery,
    response: G.geoPlaceSchema,
  },
  {
    method: 'GET',
    path: '/v1/user/geo/autocomplete',
    summary:
      'Address suggestions for what has been typed so far (a ZIP, a city, or a street address when a geocoding service is configured)',
    tag: 'Geo',
    auth: true,
    query: G.geoAutocompleteQuery,
    response: G.geoSuggestionsSchema,
  },
];

/** Features append their lists here (trackings, carriers, notifications, ...). */
export const invitationEndpoints: EndpointDef[] = [
  {
    method: 'POST',
    path: '/v1/user/invitations/create',
    summary: `Invite a courier by email (and SMS when a phone is given, $0.04): a link valid ${I.INVITATION_TTL_DAYS} days where they set their own password (company owners; ${I.INVITATION_SENDS_PER_HOUR} sends an hour)`,
    tag: 'Members',
    auth: true,
    body: I.createInvitationRequest,
    response: I.invitationViewSchema,
  },
  {
    method: 'GET',
    path: '/v1/user/invitations/list',
    summary: 'Your courier invitations, newest first, with their state (pending, accepted, expired, revoked, declined)',
    tag: 'Members',
    auth: true,
    response: I.invitationListSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/invitations/resend',
    summary: 'Send an invitation again with a new link (the old link stops working) and a new expiry',
    tag: 'Members',
    auth: true,
    body: I.invitationIdRequest,
    response: I.invitationViewSchema,
  },
  {
    method: 'POST',
    path: '/v1/user/invitations/revoke',
    summary: 'Withdraw a pending invitation (its link stops working)',
    tag: 'Members',
    auth: true,
    body: I.invitationIdRequest,
    response: I.invitationViewSchema,
  },
  {
    method: 'GET',
    path: '/v1/invitations/{token}',
    summary: 'The invitation behind a link: company, email and whether it can still be accepted (no auth)',
    tag: 'Members',
    auth: false,
    response: I.publicInvitationSchema,
  },
  {
    method: 'POST',
    path: '/v1/invitations/accept',
    summary: 'Accept an invitation: set a password (8+ characters, repeated) and sign in as the courier (no auth)',
    tag: 'Members',
    auth: false,
    body: I.acceptInvitationRequest,
    response: A.sessionPayloadSchema,
  },
  {
    method: 'POST',
    path: '/v1/invitations/decline',
    summary: 'Decline an invitation; for a courier account a company made on your address, release the address (no auth)',
    tag: 'Members',
    auth: false,
    body: I.declineInvitationRequest,
  },
];

export const endpoints: EndpointDef[] = [
  ...accountEndpoints,
  ...trackingEndpoints,
  ...notificationEndpoints,
  ...memberEndpoints,
  ...invitationEndpoints,
  ...shipmentEndpoints,
  ...planningEndpoints,
  ...billingEndpoints,
  ...geoEndpoints,
];
