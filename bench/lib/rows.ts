// Rows the benches write as the server would: no server module is imported here, so a bench that loads the server
// only after choosing its settings (embedded-thread) can use them too.

/** The status change a bench makes a tracking go through, as the trackings module writes its event: Pending to In Transit. */
export const inTransitEvent = (trackingId: string, userId: string) => ({
  trackingId,
  userId,
  fromStatus: 'Pending' as const,
  toStatus: 'InTransit' as const,
  checkpoint: { status: 'InTransit', location: 'Memphis, TN', message: 'Departed', time: new Date().toISOString() },
});
