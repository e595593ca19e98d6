import { Alert, Box, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { normalizeTrackingNumber, type ShipmentView } from '@shiptrail/contract';
import { IconPhoto } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';

interface Detector {
  detect(source: ImageBitmapSource): Promise<Array<{ rawValue: string }>>;
}

/** The browser's own BarcodeDetector where it reads Code 128 (Android Chrome, Safari 17+), else null. */
async function nativeReader(): Promise<Detector | null> {
  const Native = (
    globalThis as { BarcodeDetector?: { new (o: { formats: string[] }): Detector; getSupportedFormats?: () => Promise<string[]> } }
  ).BarcodeDetector;
  const formats: string[] = (await Native?.getSupportedFormats?.().catch(() => [] as string[])) ?? [];
  return Native && formats.includes('code_128') ? new Native({ formats: ['code_128'] }) : null;
}

/** The barcode-detector polyfill (ZXing in WebAssembly) and the address of its wasm, served from this site. */
const polyfill = () => Promise.all([import('barcode-detector/ponyfill'), import('zxing-wasm/reader/zxing_reader.wasm?url')]);

/** A Code 128 reader: the browser's own, else the polyfill (decision 130). */
async function codeReader(): Promise<Detector> {
  const native = await nativeReader();
  if (native) return native;
  const [{ BarcodeDetector, setZXingModuleOverrides }, { default: wasmUrl }] = await polyfill();
  setZXingModuleOverrides({ locateFile: (path: string, prefix: string) => (path.endsWith('.wasm') ? wasmUrl : prefix + path) });
  return new BarcodeDetector({ formats: ['code_128'] });
}

/**
 * Fetches the polyfill and its wasm while there is signal, so the service worker keeps them and a scanner opened
 * for the first time without signal still reads (decision 150). Nothing on a browser that reads Code 128 itself.
 */
export async function prefetchReader(): Promise<void> {
  if (await nativeReader()) return;
  const [, { default: wasmUrl }] = await polyfill();
  await fetch(wasmUrl);
}

/** What the scanner says of a label that is not one of today's stops. */
export const notTodays = (tid: string) => `The label ${tid} is not one of your stops today.`;
export const NO_BARCODE = 'No barcode found in this picture: hold the label flat, in good light, and try again.';
export const NO_CAMERA = 'The camera is not available here: pick a photo of the label instead.';

/**
 * "Scan a label": the camera reads a label's Code 128 barcode and opens that stop; a photo of the label can be
 * picked instead (no camera permission needed). A label that is not one of the courier's stops today says so.
 */
export function ScanLabel({ stops, onFound, onClose }: { stops: ShipmentView[]; onFound: (s: ShipmentView) => void; onClose: () => void }) {
  const video = useRef<HTMLVideoElement>(null);
  const file = useRef<HTMLInputElement>(null);
  const reader = useRef<Promise<Detector> | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [camera, setCamera] = useState<'starting' | 'on' | 'off'>('starting');
  const getReader = () => (reader.current ??= codeReader());

  // Latest stops and callback for the camera loop, which is started once.
  const found = useRef<(raw: string) => boolean>(() => false);
  found.current = (raw: string) => {
    const tid = normalizeTrackingNumber(raw);
    const stop = stops.find((s) => s.tid === tid);
    if (stop) {
      onFound(stop);
      return true;
    }
    setProblem(notTodays(tid));
    return false;
  };

  useEffect(() => {
    let stopped = false;
    let stream: MediaStream | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let last = '';
    (async () => {
      try {
        if (!navigator.mediaDevices?.getUserMedia) throw new Error('no camera');
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
        if (stopped || !video.current) return;
        video.current.srcObject = stream;
        await video.current.play().catch(() => undefined);
        setCamera('on');
        const detector = await getReader();
        const tick = async () => {
          if (stopped || !video.current) return;
          if (video.current.readyState >= 2) {
            const codes = await detector.detect(video.current).catch(() => []);
            const raw = codes[0]?.rawValue;
            // The same wrong label in view is said once, not every frame.
            if (raw && raw !== last) {
              last = raw;
              if (found.current(raw)) return;
            }
          }
          timer = setTimeout(() => void tick(), 250);
        };
        void tick();
      } catch {
        if (!stopped) setCamera('off');
      }
    })();
    return () => {
      stopped = true;
      clearTimeout(timer);
      for (const t of stream?.getTracks() ?? []) t.stop();
    };
  }, []);

  const fromPhoto = async (f: File | undefined) => {
    if (!f) return;
    setProblem(null);
    try {
      const [detector, bitmap] = await Promise.all([getReader(), createImageBitmap(f)]);
      const codes = await detector.detect(bitmap);
      if (codes[0]?.rawValue) found.current(codes[0].rawValue);
      else setProblem(NO_BARCODE);
    } catch {
      setProblem(NO_BARCODE);
    } finally {
      if (file.current) file.current.value = '';
    }
  };

  return (
    <Modal opened onClose={onClose} title="Scan a label" centered>
      <Stack gap="sm">
        {camera !== 'off' ? (
          <Box bg="dark.8" style={{ borderRadius: 8, overflow: 'hidden', aspectRatio: '4 / 3' }}>
            <video ref={video} muted playsInline aria-label="Camera" style={{ width: '100%', height: '100%', objectFit: 'cover' }} />
          </Box>
        ) : (
          <Text size="sm" c="dimmed" data-testid="scan-no-camera">
            {NO_CAMERA}
          </Text>
        )}
        {camera === 'on' && (
          <Text size="sm" c="dimmed">
            Point the camera at the barcode on the label.
          </Text>
        )}
        {problem && (
          <Alert color="orange" role="alert" data-testid="scan-problem">
            {problem}
          </Alert>
        )}
        <Group justify="space-between">
          <Button variant="default" leftSection={<IconPhoto size={16} />} onClick={() => file.current?.click()}>
            Pick a photo of the label
          </Button>
          <Button variant="subtle" onClick={onClose}>
            Close
          </Button>
        </Group>
        <input
          ref={file}
          type="file"
          accept="image/*"
          hidden
          aria-label="Photo of the label"
          data-testid="scan-photo"
          onChange={(e) => void fromPhoto(e.target.files?.[0])}
        />
      </Stack>
    </Modal>
  );
}
