import { Paper, Switch, Text } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { request } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format';
import { outcomeOf } from '../api/send-outcome';

/** Remembered per browser: a courier who turned sharing on finds it on when they come back. */
export const SHARE_LOCATION_KEY = 'shiptrail.shareLocation';
/** A courier's position is sent at most this often while the page is open (battery, data, server load). */
export const SHARE_EVERY_MS = 30_000;

/**
 * The last position that could not be sent (no signal), kept on the phone with the time it was taken and sent
 * when the signal returns (the `online` event, or the page opened again): the couriers map catches up, and the
 * server keeps a fix older than a few minutes from recipients (decision 128). Only the latest is kept: a newer
 * fix says more than an older one.
 */
export const PENDING_POSITION_KEY = 'shiptrail.pendingPosition';
type Fix = { lat: number; lng: number; takenAt: string };
const pendingFix = (): Fix | null => {
  try {
    const v = localStorage.getItem(PENDING_POSITION_KEY);
    return v ? (JSON.parse(v) as Fix) : null;
  } catch {
    return null;
  }
};
const keepFix = (f: Fix | null) => {
  try {
    if (f) localStorage.setItem(PENDING_POSITION_KEY, JSON.stringify(f));
    else localStorage.removeItem(PENDING_POSITION_KEY);
  } catch {
    // Private browsing may refuse storage: the fix is simply not kept.
  }
};

const stored = () => {
  try {
    return localStorage.getItem(SHARE_LOCATION_KEY) === '1';
  } catch {
    return false;
  }
};

/**
 * The courier's "Share my location" switch: while on and the page is open, the browser's position goes to
 * the couriers map, at most every SHARE_EVERY_MS (the freshest fix is sent when the interval has passed).
 */
export function ShareLocation() {
  const supported = typeof navigator !== 'undefined' && 'geolocation' in navigator;
  const [on, setOn] = useState(() => supported && stored());
  const [lastSent, setLastSent] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const sentAt = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latest = useRef<Fix | null>(null);
  const [kept, setKept] = useState<Fix | null>(() => pendingFix());

  useEffect(() => {
    try {
      localStorage.setItem(SHARE_LOCATION_KEY, on ? '1' : '0');
    } catch {
      // Private browsing may refuse storage; sharing still works for this visit.
    }
    if (!on || !supported) return;
    setProblem(null);
    const post = (fix: Fix) =>
      request('/v1/user/general/position', { body: fix }).then(
        () => {
          // Sent: a fix kept from before is older than this one (or is this one), so it is done with.
          const older = pendingFix();
          if (older && older.takenAt <= fix.takenAt) keepFix(null);
          setKept(pendingFix());
          setLastSent(new Date().toISOString());
          setProblem(null);
        },
        (e: unknown) => {
          const kept = pendingFix();
          if (outcomeOf(e) === 'later') {
            // Kept unless a newer fix is kept already (an old one resent and failing again must not replace it).
            if (!kept || kept.takenAt <= fix.takenAt) keepFix(fix);
          } else {
            // Refused for good (in the server's words): not kept, so it is not sent again and again.
            if (kept && kept.takenAt === fix.takenAt) keepFix(null);
            setProblem(e instanceof Error ? e.message : 'Could not send your position');
          }
          setKept(pendingFix());
        },
      );
    const send = () => {
      timer.current = null;
      const p = latest.current;
      if (!p) return;
      sentAt.current = Date.now();
      void post(p);
    };
    const sendKept = () => {
      const f = pendingFix();
      if (f) void post(f);
    };
    sendKept();
    window.addEventListener('online', sendKept);
    const watch = navigator.geolocation.watchPosition(
      (pos) => {
        latest.current = {
          lat: Number(pos.coords.latitude.toFixed(6)),
          lng: Number(pos.coords.longitude.toFixed(6)),
          takenAt: new Date(pos.timestamp || Date.now()).toISOString(),
        };
        if (timer.current) return;
        const wait = sentAt.current + SHARE_EVERY_MS - Date.now();
        if (wait <= 0) send();
        else timer.current = setTimeout(send, wait);
      },
      (err) => {
        setProblem(
          err.code === err.PERMISSION_DENIED
            ? 'Your browser did not allow access to your location.'
            : 'Your position is not available right now.',
        );
        if (err.code === err.PERMISSION_DENIED) setOn(false);
      },
      { enableHighAccuracy: true, maximumAge: 15_000, timeout: 60_000 },
    );
    return () => {
      window.removeEventListener('online', sendKept);
      navigator.geolocation.clearWatch(watch);
      if (timer.current) clearTimeout(timer.current);
      timer.current = null;
    };
  }, [on, supported]);

  return (
    <Paper p="md" mb="md">
      <Switch
        label="Share my location"
        description={
          supported
            ? 'While this page is open, your company sees where you are on its couriers map (updated at most every 30 seconds).'
            : 'This browser cannot tell your location.'
        }
        checked={on}
        disabled={!supported}
        onChange={(e) => setOn(e.currentTarget.checked)}
      />
      {on && lastSent && (
        <Text size="xs" c="dimmed" mt={6} data-testid="share-location-sent">
          Last sent {formatDateTime(lastSent)}
        </Text>
      )}
      {on && kept && (
        <Text size="xs" c="dimmed" mt={6} data-testid="share-location-kept">
          No signal: your position of {formatDateTime(kept.takenAt)} is kept on the phone and goes when the signal returns.
        </Text>
      )}
      {problem && (
        <Text size="xs" c="red" mt={6} role="alert">
          {problem}
        </Text>
      )}
    </Paper>
  );
}
