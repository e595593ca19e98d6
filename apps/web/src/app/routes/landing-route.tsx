import { Box, Container } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { Navigate, useLocation, useNavigate, useParams } from 'react-router';
import { HeroSection } from '../../features/landing/components/hero-section';
import { FeaturesSection } from '../../features/landing/components/features-section';
import { PricingSection } from '../../features/landing/components/pricing-section';
import { AuthSection, type AuthTab } from '../../features/auth/components/auth-section';
import { usePricing } from '../../features/landing/api/get-pricing';
import type { GoogleCodeBody } from '../../features/auth/api/google-login';
import { useSession } from '../../lib/session';
import { useUserInfo } from '../../lib/user-info';
import { PageLoader } from '../../components/page-loader';
import { timeZone } from '../../lib/format';
import { currentInvite, rememberInvite, type Invite } from '../../lib/invite';

// Behind a click or a Google return: the modals and the Google panel load when needed. The sign-in and
// sign-up forms are part of the page (every visit shows them), so they come in the same chunk.
const VideoModal = lazy(() => import('../../features/landing/components/video-modal').then((m) => ({ default: m.VideoModal })));
const TermsModal = lazy(() => import('../../features/landing/components/terms-modal').then((m) => ({ default: m.TermsModal })));
const GoogleReturnPanel = lazy(() =>
  import('../../features/auth/components/google-return-panel').then((m) => ({ default: m.GoogleReturnPanel })),
);

const SECTION_HASHES = ['#tab-login', '#tab-register', '#features', '#pricing'];

/** Reads a Google return (any other hash, or ?code=) for code and state (product rules §2). */
function readGoogleReturn(hash: string, search: string, params: { promocode?: string; userID?: string }) {
  const fromHash = hash.length > 1 && !SECTION_HASHES.includes(hash) ? new URLSearchParams(hash.slice(1)) : null;
  const fromSearch = new URLSearchParams(search);
  const code = fromHash?.get('code') ?? fromSearch.get('code');
  if (!code) return null;
  const state = fromHash?.get('state') ?? fromSearch.get('state') ?? '';
  const isLogin = `${search}${hash}`.includes('login=1');
  const body: GoogleCodeBody = { code, state, timeZone: timeZone() };
  if (!isLogin) {
    body.userType = 'person';
    if (params.promocode) body.promocode = params.promocode;
    if (params.userID) body.referrer = params.userID;
  }
  return { body, isLogin };
}

export default function LandingRoute() {
  const { hash, search } = useLocation();
  const navigate = useNavigate();
  const routeParams = useParams<{ promocode?: string; userID?: string }>();
  // The invitation survives START FREE, LOGIN, Pricing and Features, which leave the invite route (lib/invite.ts).
  const invite: Invite = useMemo(() => {
    const fromRoute = { promocode: routeParams.promocode, referrer: routeParams.userID };
    rememberInvite(fromRoute);
    return currentInvite(fromRoute);
  }, [routeParams.promocode, routeParams.userID]);
  const params = useMemo(() => ({ promocode: invite.promocode, userID: invite.referrer }), [invite]);
  const session = useSession();
  const info = useUserInfo();
  const { pricing } = usePricing();
  const [tab, setTab] = useState<AuthTab>(params.promocode || params.userID ? 'register' : 'login');
  const [videoOpened, video] = useDisclosure(false);
  const [termsOpened, terms] = useDisclosure(false);
  const google = useMemo(() => readGoogleReturn(hash, search, params), [hash, search, params]);

  const [authReady, setAuthReady] = useState(false);
  useEffect(() => {
    if (google) return;
    if (hash === '#tab-login') setTab('login');
    else if (hash === '#tab-register') setTab('register');
    if (SECTION_HASHES.includes(hash)) {
      // Wait a frame so the section exists, then bring it into view.
      requestAnimationFrame(() => document.getElementById(hash.slice(1))?.scrollIntoView({ behavior: 'smooth', block: 'start' }));
    } else if (!hash) window.scrollTo({ top: 0 });
  }, [hash, google, authReady]);

  // Logged-in users go to the wizard or the dashboard (product rules §2).
  if (session && !google) {
    if (info.data) return <Navigate to={info.data.profile.showWizard ? '/account/init' : '/account/dashboard'} replace />;
    if (!info.isError) return <PageLoader />;
  }

  return (
    <>
      {google && (
        <Container size="lg" pt="xl">
          <Suspense fallback={<PageLoader h={200} />}>
            <GoogleReturnPanel body={google.body} isLogin={google.isLogin} onDone={() => navigate('/#tab-login', { replace: true })} />
          </Suspense>
        </Container>
      )}
      <HeroSection onWatchVideo={video.open} signupBonus={pricing.signupBonus} />
      <FeaturesSection />
      <PricingSection pricing={pricing} />
      <Box mih={640}>
        <AuthSection
          tab={tab}
          onTab={setTab}
          promocode={params.promocode}
          referrer={params.userID}
          signupBonus={pricing.signupBonus}
          onShowTerms={terms.open}
          onReady={() => setAuthReady(true)}
        />
      </Box>
      <Suspense>
        {videoOpened && <VideoModal opened={videoOpened} onClose={video.close} />}
        {termsOpened && <TermsModal opened={termsOpened} onClose={terms.close} />}
      </Suspense>
    </>
  );
}
