import { Paper, Switch, Text } from '@mantine/core';
import { useCallback, useEffect, useRef, useState } from 'react';
import { formatDateTime } from '../../../lib/format';
import { useUserInfo } from '../../../lib/user-info';
import { RETRY_MS } from '../api/outbox';
import { keepFix, sendTrail, TRAIL_MAX, useTrail } from '../api/position-trail';

/** Remembered per browser: a courier who turned sharing on finds it on when they come back. */
export const SHARE_LOCATION_KEY = 'shiptrail.shareLocation';
/** A courier's position is sent at most this often while the page is open (battery, data, server load). */
export const SHARE_EVERY_MS = 30_000;

/**
 * Where the previous version of the app kept the one position it could not send (decision 128): moved into the
 * trail kept on the phone (decision 149) the first time this version runs.
 */
export const PENDING_POSITION_KEY = 'shiptrail.pendingPosition';
type Fix = { lat: number; lng: number; takenAt: string };
function takeLegacyFix(): Fix | null {
  try {
    const v = localStorage.getItem(PENDING_POSITION_KEY);
    localStorage.removeItem(PENDING_POSITION_KEY);
    return v ? (JSON.parse(v) as Fix) : null;
  } catch {
    return null;
  }
}

/** A failing position watch is said on the card once the last fix is this old (or when there is none). */
const UNAVAILABLE_AFTER_MS = 2 * 60_000;

const stored = () => {
  try {
    return localStorage.getItem(SHARE_LOCATION_KEY) === '1';
  } catch {
    return false;
  }
};

/**
 * The courier's "Share my location" switch: while on and the page is open, the browser's position is taken at most
 * every SHARE_EVERY_MS (the freshest fix when the interval has passed), kept on the phone, and sent: without signal
 * the fixes wait on the phone and go together, oldest first, when it returns (decision 149).
 */
export function ShareLocation() {
  const supported = typeof navigator !== 'undefined' && 'geolocation' in navigator;
  const account = useUserInfo().data?.profile.uid;
  const [on, setOn] = useState(() => supported && stored());
  const [lastSent, setLastSent] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  // The last try found no signal (or a busy server): what is kept is said on the card until a try goes through.
  const [noSignal, setNoSignal] = useState(false);
  const [dropped, setDropped] = useState(false);
  const [unavailable, setUnavailable] = useState(false);
  const kept = useTrail(account);
  const waits = useRef(false);
  waits.current = kept.length > 0;
  const sentAt = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latest = useRef<Fix | null>(null);

  const flush = useCallback(() => {
    if (!account) return Promise.resolve();
    return sendTrail(account).then((out) => {
      if ('later' in out) return setNoSignal(true);
      setNoSignal(false);
      if ('refused' in out) return setProblem(out.refused);
      if (out.sent > 0) {
        setLastSent(new Date().toISOString());
        setDropped(false);
        setProblem(null);
      }
    });
  }, [account]);

  // What is kept goes on start, when the signal is back, and every few seconds while something waits (a phone can
  // come back without an `online` event: decision 138), whether or not the switch is still on: it was taken while on.
  useEffect(() => {
    if (!account) return;
    const legacy = takeLegacyFix();
    void (legacy ? keepFix({ account, ...legacy, keptAt: new Date().toISOString() }, 0) : Promise.resolve()).then(flush);
    const go = () => void flush();
    window.addEventListener('online', go);
    const every = window.setInterval(() => {
      if (waits.current) go();
    }, RETRY_MS);
    return () => {
      window.removeEventListener('online', go);
      window.clearInterval(every);
    };
  }, [account, flush]);

  useEffect(() => {
    try {
      localStorage.setItem(SHARE_LOCATION_KEY, on ? '1' : '0');
    } catch {
      // Private browsing may refuse storage; sharing still works for this visit.
    }
    if (!on || !supported || !account) return;
    setProblem(null);
    const take = () => {
      timer.current = null;
      const p = latest.current;
      if (!p) return;
      sentAt.current = Date.now();
      void keepFix({ account, ...p, keptAt: new Date().toISOString() }, SHARE_EVERY_MS / 2).then(({ dropped: n }) => {
        if (n > 0) setDropped(true);
        return flush();
      });
    };
    const watch = navigator.geolocation.watchPosition(
      (pos) => {
        setUnavailable(false);
        latest.current = {
          lat: Number(pos.coords.latitude.toFixed(6)),
          lng: Number(pos.coords.longitude.toFixed(6)),
          takenAt: new Date(pos.timestamp || Date.now()).toISOString(),
        };
        if (timer.current) return;
        const wait = sentAt.current + SHARE_EVERY_MS - Date.now();
        if (wait <= 0) take();
        else timer.current = setTimeout(take, wait);
      },
      (err) => {
        if (err.code === err.PERMISSION_DENIED) {
          setProblem('Your browser did not allow access to your location.');
          setOn(false);
          return;
        }
        // A watch that fails for a while after a fix (a courier standing still, a brief loss of GPS) has nothing
        // to tell while that fix is recent; it says so when there is none.
        const last = latest.current;
        if (!last || Date.now() - Date.parse(last.takenAt) > UNAVAILABLE_AFTER_MS) setUnavailable(true);
      },
      { enableHighAccuracy: true, maximumAge: 15_000, timeout: 60_000 },
    );
    return () => {
      navigator.geolocation.clearWatch(watch);
      if (timer.current) clearTimeout(timer.current);
      timer.current = null;
    };
  }, [on, supported, account, flush]);

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
      {noSignal && kept.length > 0 && (
        <Text size="xs" c="dimmed" mt={6} data-testid="share-location-kept">
          {kept.length === 1
            ? `No signal: your position of ${formatDateTime(kept[0]!.takenAt)} is kept on the phone and goes when the signal returns.`
            : `No signal: ${kept.length} positions since ${formatDateTime(kept[0]!.takenAt)} are kept on the phone and go when the signal returns, in order.`}
          {dropped && ` The phone keeps the last ${TRAIL_MAX}: the oldest were dropped.`}
        </Text>
      )}
      {on && unavailable && (
        <Text size="xs" c="red" mt={6} role="alert">
          Your position is not available right now.
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
