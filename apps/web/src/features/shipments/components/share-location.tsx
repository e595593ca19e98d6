import { Paper, Switch, Text } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { request } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format';

/** Remembered per browser: a courier who turned sharing on finds it on when they come back. */
export const SHARE_LOCATION_KEY = 'shiptrail.shareLocation';
/** A courier's position is sent at most this often while the page is open (battery, data, server load). */
export const SHARE_EVERY_MS = 30_000;

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
  const latest = useRef<{ lat: number; lng: number } | null>(null);

  useEffect(() => {
    try {
      localStorage.setItem(SHARE_LOCATION_KEY, on ? '1' : '0');
    } catch {
      // Private browsing may refuse storage; sharing still works for this visit.
    }
    if (!on || !supported) return;
    setProblem(null);
    const send = () => {
      timer.current = null;
      const p = latest.current;
      if (!p) return;
      sentAt.current = Date.now();
      request('/v1/user/general/position', { body: p })
        .then(() => setLastSent(new Date().toISOString()))
        .catch((e: unknown) => setProblem(e instanceof Error ? e.message : 'Could not send your position'));
    };
    const watch = navigator.geolocation.watchPosition(
      (pos) => {
        latest.current = { lat: Number(pos.coords.latitude.toFixed(6)), lng: Number(pos.coords.longitude.toFixed(6)) };
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
      {problem && (
        <Text size="xs" c="red" mt={6} role="alert">
          {problem}
        </Text>
      )}
    </Paper>
  );
}
