import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { createBrowserRouter, Navigate, RouterProvider, useParams } from 'react-router';
import { PublicLayout } from './layouts/public-layout';
import { RequireSession } from './require-session';
import { PageLoader } from '../components/page-loader';
import { RouteError } from './route-error';
import LandingRoute from './routes/landing-route';

// The landing page is the first page most visitors see, so it is part of the entry chunk (no second round
// trip before it renders). Every other page is its own chunk (React.lazy): a page added here must be lazy
// too, or its code joins the entry chunk that every visitor of the landing page downloads.
const GetInTouch = lazy(() => import('../features/contact/routes/get-in-touch-route'));
const Developers = lazy(() => import('../features/developers/routes/developers-route'));
const Terms = lazy(() => import('../features/legal/routes/terms-route'));
const Privacy = lazy(() => import('../features/legal/routes/privacy-route'));
const Track = lazy(() => import('../features/public-tracking/routes/track-route'));
const Verify = lazy(() => import('../features/auth/routes/verify-route'));
const PasswordReset = lazy(() => import('../features/auth/routes/password-reset-route'));
const InviteAccept = lazy(() => import('../features/couriers/routes/invite-accept-route'));
const NotFound = lazy(() => import('./not-found'));

const AccountLayout = lazy(() => import('./layouts/account-layout'));
const Wizard = lazy(() => import('../features/account/routes/wizard-route'));
// The dashboard, or for a courier their day: the home route picks one (each its own chunk).
const Home = lazy(() => import('./routes/home-route'));
const CourierAccount = lazy(() => import('../features/account/routes/courier-account-route'));
const Trackings = lazy(() => import('../features/trackings/routes/trackings-route'));
const Performance = lazy(() => import('../features/trackings/routes/performance-route'));
const Notifications = lazy(() => import('../features/notifications/routes/notifications-route'));
const Invite = lazy(() => import('../features/account/routes/invite-route'));
const Support = lazy(() => import('../features/account/routes/support-route'));
const Settings = lazy(() => import('./routes/settings-route'));
const Alerts = lazy(() => import('../features/account/routes/alerts-route'));
const Invoice = lazy(() => import('../features/billing/routes/invoice-route'));
const Shipments = lazy(() => import('../features/shipments/routes/shipments-route'));
const PrintLabels = lazy(() => import('../features/shipments/routes/print-route'));
const Couriers = lazy(() => import('../features/couriers/routes/couriers-route'));
const CouriersMap = lazy(() => import('../features/couriers/routes/couriers-map-route'));
const ShipmentsMap = lazy(() => import('../features/shipments/routes/shipments-map-route'));
const PlanDay = lazy(() => import('../features/shipments/routes/plan-route'));

function page(C: LazyExoticComponent<ComponentType> | ComponentType) {
  return (
    <Suspense fallback={<PageLoader />}>
      <C />
    </Suspense>
  );
}

// First segments of real pages: a promo link never takes one of these (/verify without its key, /track/x,
// /account...), and nor does a name with a dot (a missing file such as /robots.txt).
const RESERVED = new Set([
  'account',
  'assets',
  'dev',
  'developers',
  'get-in-touch',
  'healthz',
  'invite',
  'password',
  'privacy-policy',
  'promocode',
  'referrer',
  'terms-of-service',
  'track',
  'v1',
  'verify',
]);

function PromoLanding() {
  const { promocode = '' } = useParams();
  return RESERVED.has(promocode.toLowerCase()) || promocode.includes('.') ? page(NotFound) : page(LandingRoute);
}

const router = createBrowserRouter([
  {
    element: <PublicLayout />,
    errorElement: <RouteError />,
    children: [
      { path: '/', element: page(LandingRoute) },
      { path: '/promocode/:promocode', element: page(LandingRoute) },
      { path: '/referrer/:userID', element: page(LandingRoute) },
      { path: '/get-in-touch', element: page(GetInTouch) },
      { path: '/developers', element: page(Developers) },
      { path: '/terms-of-service', element: page(Terms) },
      { path: '/privacy-policy', element: page(Privacy) },
      // Promo and invite links: /{promocode} and /{promocode}/{userID}. Static paths rank above these
      // dynamic ones, and the landing page shows "not found" for a first segment that names a real page.
      { path: '/:promocode/:userID?', element: <PromoLanding /> },
      { path: '/verify/:key', element: page(Verify) },
      { path: '/password/reset/:key', element: page(PasswordReset) },
      { path: '/invite/:token', element: page(InviteAccept) },
      { path: '*', element: page(NotFound) },
    ],
  },
  // The public tracking page brings its own frame: a company's customers see the company, not Shiptrail's
  // marketing navigation.
  { path: '/track/:uid/:tid', element: page(Track), errorElement: <RouteError /> },
  {
    path: '/account',
    element: <RequireSession />,
    errorElement: <RouteError />,
    children: [
      {
        element: (
          <Suspense fallback={<PageLoader h="100vh" />}>
            <AccountLayout />
          </Suspense>
        ),
        children: [
          { index: true, element: <Navigate to="/account/dashboard" replace /> },
          { path: 'init', element: page(Wizard) },
          { path: 'dashboard', element: page(Home) },
          { path: 'me', element: page(CourierAccount) },
          { path: 'trackings', element: page(Trackings) },
          { path: 'performance', element: page(Performance) },
          { path: 'notifications', element: page(Notifications) },
          { path: 'invite', element: page(Invite) },
          { path: 'support', element: page(Support) },
          { path: 'alerts', element: page(Alerts) },
          { path: 'shipments', element: page(Shipments) },
          { path: 'print', element: page(PrintLabels) },
          { path: 'couriers', element: page(Couriers) },
          { path: 'couriers/map', element: page(CouriersMap) },
          { path: 'shipments/map', element: page(ShipmentsMap) },
          { path: 'shipments/plan', element: page(PlanDay) },
          { path: 'profile/settings/:tab?/:subTab?', element: page(Settings) },
          { path: 'profile/invoice/:invoiceId', element: page(Invoice) },
          { path: '*', element: page(NotFound) },
        ],
      },
    ],
  },
]);

export function AppRouter() {
  return <RouterProvider router={router} />;
}
