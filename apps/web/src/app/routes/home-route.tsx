import { lazy, Suspense } from 'react';
import { PageLoader } from '../../components/page-loader';
import { useUserInfo } from '../../lib/user-info';

const Dashboard = lazy(() => import('../../features/account/routes/dashboard-route'));
const CourierHome = lazy(() => import('../../features/shipments/routes/courier-home-route'));

/** /account/dashboard: an owner's dashboard, or a courier's day (today's stops). */
export default function HomeRoute() {
  const { data } = useUserInfo();
  if (!data) return <PageLoader />;
  return <Suspense fallback={<PageLoader />}>{data.profile.role === 'courier' ? <CourierHome /> : <Dashboard />}</Suspense>;
}
