import type { SessionPayload } from '@shiptrail/contract';
import { queryClient } from './query-client';
import { setSession } from './session';
import { forgetInvite } from './invite';
import { forgetCopies } from './offline-copy';

/** Stores a new session (login, sign-up, Google, email verification) and says where to go next (product rules §4). */
export function startSession(payload: SessionPayload): string {
  queryClient.clear();
  forgetInvite();
  setSession({ token: payload.sessionToken, version: payload.version });
  return payload.profile.showWizard ? '/account/init' : '/account/dashboard';
}

/** Sign out clears the session and everything loaded for it, trackings included (product rules §2). */
export function endSession() {
  setSession(null);
  queryClient.clear();
  void forgetCopies();
}
