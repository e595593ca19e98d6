import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  API_TOKEN_HEADER,
  MSG,
  dropEmptyStrings,
  getInTouchRequest,
  inviteRequest,
  loginActionRequest,
  loginCodeRequest,
  loginPasswordRequest,
  passwordResetRequest,
  passwordUpdateRequest,
  recoverParams,
  resendActivationQuery,
  signupRequest,
  supportRequest,
  updateRequest,
  PRICING_VIEW,
} from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { parse, success } from '../../lib/http.ts';
import { badRequest } from '../../lib/errors.ts';
import { userOf } from './auth.plugin.ts';
import * as svc from './accounts.service.ts';
import * as messages from './messages.service.ts';
import { verifyRecaptcha } from './recaptcha.ts';
import { googleAuthUrl } from './google.ts';

export const PASSWORD_RESET_KEY_NOTE = 'Every device was signed out and your API key was replaced: copy the new one from Settings.';

const meta = (req: FastifyRequest): svc.RequestMeta => ({ ip: req.ip, userAgent: req.headers['user-agent'] });
/** Costly unauthenticated calls (mail, password hashing) are limited per IP. */
const perIp = (max: number, minutes = 15) => ({ config: { rateLimit: { max, timeWindow: minutes * 60_000 } } });

/** The preHandlers the account routes use: signed in, and signed in as the company's owner. */
interface Guards {
  auth: { preHandler: FastifyInstance['requireAuth'] };
  owner: { preHandler: FastifyInstance['requireOwner'] };
}

export async function accountRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const auth = { preHandler: app.requireAuth };
  // A courier's account belongs to its company: beyond their own password they change no settings.
  const owner = { preHandler: app.requireOwner };
  const guards: Guards = { auth, owner };
  sessionRoutes(app, ctx, guards);
  emailAndPasswordRoutes(app, ctx, guards);
  profileRoutes(app, ctx, guards);
  messageRoutes(app, ctx, guards);
  app.post('/v1/user/alerts/dismiss/:id', auth, async (req) => {
    await svc.dismissAlert(ctx, userOf(req), (req.params as { id: string }).id);
    return success(null, 'Dismissed');
  });

  app.get('/v1/info/pricing', async () => success(PRICING_VIEW));
}

/** Sign up, log in (password, Google), log out. */
function sessionRoutes(app: FastifyInstance, ctx: AppContext, { auth }: Guards) {
  app.post('/v1/user/general/signup', perIp(ctx.config.SIGNUPS_PER_HOUR, 60), async (req, reply) => {
    const input = parse(signupRequest, req.body);
    await verifyRecaptcha(ctx.config, input.recaptcha, req.ip);
    reply.code(201);
    return success(await svc.signup(ctx, input, meta(req)), MSG.signedUp, 201);
  });

  app.post('/v1/user/general/login', perIp(60), async (req) => {
    // A JSON string, number or array, or a text/plain body, is not a login: a 400, like any bad field.
    if (req.body !== undefined && req.body !== null && (typeof req.body !== 'object' || Array.isArray(req.body))) {
      throw badRequest('Send the login as a JSON object', { _: 'Send the login as a JSON object' });
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (body.action != null) {
      const { action, redirectUri } = parse(loginActionRequest, body);
      const url = await googleAuthUrl(ctx, action === 'generate-google-auth-url' ? 'login' : 'signup', redirectUri);
      return success({ 'google-auth-url': url }, 'OK');
    }
    if (body.code != null) {
      const input = parse(loginCodeRequest, body);
      await verifyRecaptcha(ctx.config, input.recaptcha, req.ip);
      return success(await svc.googleLogin(ctx, input, meta(req)), MSG.loggedIn);
    }
    const input = parse(loginPasswordRequest, body);
    await verifyRecaptcha(ctx.config, input.recaptcha, req.ip);
    return success(await svc.login(ctx, input.email, input.password, meta(req)), MSG.loggedIn);
  });

  app.post('/v1/user/general/logout', auth, async (req) => {
    await svc.logout(ctx, req.auth!.sessionId);
    return success(null, MSG.signedOut);
  });
}

/** The address's verification and the password: resend, verify, recover, reset, update. */
function emailAndPasswordRoutes(app: FastifyInstance, ctx: AppContext, { auth }: Guards) {
  // Registered before /verify/:key so that "resend" is never taken for a key. With a token it resends to that
  // account; without one (product rules §6: resend carries no token) to ?email=, answering the same whether or
  // not the address has an account waiting, with the work done after the reply, as recover does.
  app.get('/v1/user/email/verify/resend', perIp(10), async (req, reply) => {
    if (req.headers[API_TOKEN_HEADER] !== undefined) {
      await app.requireAuth(req, reply);
      await svc.resendVerification(ctx, userOf(req));
      return success(null, MSG.verificationResent);
    }
    const { email } = parse(resendActivationQuery, req.query);
    void svc.resendVerificationInBackground(ctx, email);
    return success(null, MSG.verificationResentIfAny);
  });
  app.get('/v1/user/email/verify/:key', perIp(30), async (req) => {
    const { key } = req.params as { key: string };
    return success(await svc.verifyEmail(ctx, key, meta(req)), MSG.emailVerified);
  });

  app.get('/v1/user/password/recover/:email', perIp(10), async (req) => {
    const { email } = parse(recoverParams, req.params);
    void svc.recoverInBackground(ctx, email);
    return success(null, MSG.recoverSent);
  });
  app.post('/v1/user/general/passwordreset', perIp(20), async (req) => {
    const input = parse(passwordResetRequest, req.body);
    await svc.resetPassword(ctx, input.verifycode, input.password);
    return success(null, `${MSG.passwordReset} ${PASSWORD_RESET_KEY_NOTE}`);
  });
  app.post('/v1/user/general/passwordupdate', auth, async (req) => {
    const input = parse(passwordUpdateRequest, req.body);
    await svc.updatePassword(ctx, userOf(req), input.password, input.newpassword, req.auth!.sessionId);
    return success(null, MSG.passwordUpdated);
  });
}

/** The account's own settings and API key. */
function profileRoutes(app: FastifyInstance, ctx: AppContext, { auth, owner }: Guards) {
  app.get('/v1/user/info', auth, async (req) => success(await svc.userInfo(ctx, userOf(req))));

  app.post('/v1/user/general/update', owner, async (req) => {
    const input = parse(updateRequest, dropEmptyStrings(req.body));
    return success(await svc.update(ctx, userOf(req), input), MSG.saved);
  });

  app.post('/v1/user/general/generatenewtoken', owner, async (req) => {
    const token = await svc.generateNewToken(ctx, userOf(req));
    return success({ token }, MSG.newToken);
  });
}

/** Messages to the team and invitations to friends. */
function messageRoutes(app: FastifyInstance, ctx: AppContext, { auth, owner }: Guards) {
  app.post('/v1/user/general/getintouch', perIp(10, 60), async (req) => {
    const input = parse(getInTouchRequest, req.body);
    await verifyRecaptcha(ctx.config, input.recaptcha, req.ip);
    await messages.getInTouch(ctx, input);
    return success(null, MSG.messageSent);
  });
  app.post('/v1/user/general/supportrequest', { ...auth, ...perIp(20, 60) }, async (req) => {
    const input = parse(supportRequest, req.body);
    await messages.supportRequest(ctx, userOf(req), input.message);
    return success(null, MSG.supportSent);
  });
  app.post('/v1/user/general/invitefriend', { ...owner, ...perIp(30, 60) }, async (req) => {
    const input = parse(inviteRequest, req.body);
    await messages.inviteFriend(ctx, userOf(req), input.email);
    return success(null, MSG.inviteSent);
  });
}
