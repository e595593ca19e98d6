import {
  IconBell,
  IconChartBar,
  IconGauge,
  IconGift,
  IconHelpCircle,
  IconListDetails,
  IconAlertTriangle,
  IconSettings,
  IconTruck,
  IconTruckDelivery,
  IconUserCircle,
  type Icon,
} from '@tabler/icons-react';
import type { Profile } from '@shiptrail/contract';

export interface NavItem {
  label: string;
  to: string;
  icon: Icon;
}

/** A courier's menu: their day, their shipments, their own account (password) and support. */
const COURIER_NAV: NavItem[] = [
  { label: 'Today', to: '/account/dashboard', icon: IconGauge },
  { label: 'My shipments', to: '/account/shipments', icon: IconTruckDelivery },
  { label: 'My account', to: '/account/me', icon: IconUserCircle },
  { label: 'Support', to: '/account/support', icon: IconHelpCircle },
];

/**
 * The pages a courier may open. Everything else under /account is the owner's (billing, API key, referral,
 * trackings, couriers, notification settings): a courier who types such an address is taken to their day
 * with a sentence saying why (decision 094).
 */
const COURIER_PAGES = [
  /^\/account\/?$/,
  /^\/account\/dashboard\/?$/,
  /^\/account\/shipments(\/map)?\/?$/,
  /^\/account\/me\/?$/,
  /^\/account\/support\/?$/,
];
export const courierMayOpen = (pathname: string) => COURIER_PAGES.some((re) => re.test(pathname));

/**
 * Menus by role (product rules §6). Couriers get their own menu (no billing, API, referral or owner pages);
 * only company accounts get Shipments (their own shipments: the product's "SHM System", named for people,
 * decision 102) and Couriers.
 */
export function accountNav(profile: Pick<Profile, 'role' | 'userType'> | undefined): NavItem[] {
  if (profile?.role === 'courier') return COURIER_NAV;
  const company: NavItem[] =
    profile?.userType === 'company'
      ? [
          { label: 'Shipments', to: '/account/shipments', icon: IconTruckDelivery },
          { label: 'Couriers', to: '/account/couriers', icon: IconTruck },
        ]
      : [];
  return [
    { label: 'Dashboard', to: '/account/dashboard', icon: IconGauge },
    { label: 'Trackings', to: '/account/trackings', icon: IconListDetails },
    { label: 'Delivery performance', to: '/account/performance', icon: IconChartBar },
    ...company,
    { label: 'Notification log', to: '/account/notifications', icon: IconBell },
    { label: 'Alerts', to: '/account/alerts', icon: IconAlertTriangle },
    { label: 'Settings', to: '/account/profile/settings', icon: IconSettings },
    { label: 'Invite a friend', to: '/account/invite', icon: IconGift },
    { label: 'Support', to: '/account/support', icon: IconHelpCircle },
  ];
}
