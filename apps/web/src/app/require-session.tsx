import { Navigate, Outlet } from 'react-router';
import { useSession } from '../lib/session';

/** Logged-in routes redirect to / without a session token (product rules §2). */
export function RequireSession() {
  const session = useSession();
  if (!session) return <Navigate to="/" replace />;
  return <Outlet />;
}
