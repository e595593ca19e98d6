import { Box, Button, Group, Input, Text } from '@mantine/core';
import { IconEraser } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import SignaturePad from 'signature_pad';

/**
 * A signature drawn with a finger or a mouse (signature_pad), given to the form as a PNG data URL; '' when
 * cleared. The canvas is sized to its box at up to 2x pixel density: sharp on a phone and still small
 * enough for the server's size cap.
 */
export function SignatureField({
  value,
  onChange,
  error,
  label = 'Signature',
}: {
  value: string;
  onChange: (dataUrl: string) => void;
  error?: React.ReactNode;
  label?: string;
}) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const padRef = useRef<SignaturePad | null>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const pad = new SignaturePad(canvas, { penColor: '#111', minWidth: 0.8, maxWidth: 2.6 });
    padRef.current = pad;
    const fit = () => {
      const ratio = Math.min(Math.max(window.devicePixelRatio || 1, 1), 2);
      const data = pad.toData();
      canvas.width = canvas.offsetWidth * ratio;
      canvas.height = canvas.offsetHeight * ratio;
      canvas.getContext('2d')?.scale(ratio, ratio);
      pad.clear();
      // A rotated phone keeps what was drawn.
      if (data.length) pad.fromData(data);
    };
    fit();
    const end = () => onChangeRef.current(pad.isEmpty() ? '' : pad.toDataURL('image/png'));
    pad.addEventListener('endStroke', end);
    window.addEventListener('resize', fit);
    return () => {
      pad.removeEventListener('endStroke', end);
      window.removeEventListener('resize', fit);
      pad.off();
      padRef.current = null;
    };
  }, []);

  // The form was reset from outside: clear the drawing too.
  useEffect(() => {
    if (!value && padRef.current && !padRef.current.isEmpty()) padRef.current.clear();
  }, [value]);

  return (
    <Input.Wrapper label={label} required error={error} description="Ask the recipient to sign in the box with a finger.">
      <Box
        mt={4}
        bg="white"
        style={{
          border: `1px ${error ? 'solid var(--mantine-color-error)' : 'dashed var(--mantine-color-gray-5)'}`,
          borderRadius: 8,
          position: 'relative',
        }}
      >
        <canvas
          ref={canvasRef}
          aria-label="Signature pad"
          data-testid="signature-pad"
          style={{ width: '100%', height: 180, display: 'block', touchAction: 'none', cursor: 'crosshair' }}
        />
        {!value && (
          <Text size="sm" c="dimmed" style={{ position: 'absolute', left: 12, bottom: 8, pointerEvents: 'none' }}>
            Sign here
          </Text>
        )}
      </Box>
      <Group justify="flex-end" mt={4}>
        <Button
          size="compact-sm"
          variant="subtle"
          leftSection={<IconEraser size={14} />}
          onClick={() => {
            padRef.current?.clear();
            onChange('');
          }}
          disabled={!value}
        >
          Clear signature
        </Button>
      </Group>
    </Input.Wrapper>
  );
}
