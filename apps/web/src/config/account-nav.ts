import {
  IconBell,
  IconGauge,
  IconGift,
  IconHelpCircle,
  IconListDetails,
  IconAlertTriangle,
  IconSettings,
  IconTruck,
  IconTruckDelivery,
  type Icon,
} from '@tabler/icons-react';
import type { Profile } from '@shiptrail/contract';

export interface NavItem {
  label: string;
  to: string;
  icon: Icon;
}

/**
 * Menus by role (product rules §6). Couriers see Dashboard and Shipments only; only company accounts get Shipments
 * (their own shipments: the product's "SHM System", named for people, decision 102) and Couriers.
 */
export function accountNav(profile: Pick<Profile, 'role' | 'userType'> | undefined): NavItem[] {
  if (profile?.role === 'courier') {
    return [
      { label: 'Dashboard', to: '/account/dashboard', icon: IconGauge },
      { label: 'Shipments', to: '/account/shipments', icon: IconTruckDelivery },
    ];
  }
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
    ...company,
    { label: 'Notification log', to: '/account/notifications', icon: IconBell },
    { label: 'Alerts', to: '/account/alerts', icon: IconAlertTriangle },
    { label: 'Settings', to: '/account/profile/settings', icon: IconSettings },
    { label: 'Invite a friend', to: '/account/invite', icon: IconGift },
    { label: 'Support', to: '/account/support', icon: IconHelpCircle },
  ];
}
