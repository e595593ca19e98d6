import { Notifications } from '@mantine/notifications';

/** The toasts' container, in its own chunk: providers.tsx mounts it when the first toast is shown. */
export default function NotificationsHost() {
  return <Notifications position="top-right" zIndex={1000} limit={4} />;
}
