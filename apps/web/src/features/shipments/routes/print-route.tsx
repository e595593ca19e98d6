import { Alert, Anchor, Button, Center, Loader, Paper, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { IconArrowLeft, IconDownload, IconPrinter } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { PageHeader } from '../../../components/page-header';
import { fetchLabels, tidsFromSearch } from '../api/labels';

/** The labels of `tids` as one PDF, and a blob address for it while the page shows it. */
function useLabelsPdf(tids: string[]) {
  const key = tids.join(',');
  const labels = useQuery({
    queryKey: ['shipment-labels', key],
    queryFn: ({ signal }) => fetchLabels(tids, signal),
    enabled: tids.length > 0,
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
  });
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!labels.data) return;
    const u = URL.createObjectURL(labels.data);
    setUrl(u);
    return () => URL.revokeObjectURL(u);
  }, [labels.data]);
  return { labels, url };
}

/** Said when the page is opened without shipments. */
function NoneChosen() {
  return (
    <Alert color="yellow" title="No shipments chosen">
      Select shipments on the{' '}
      <Anchor component={Link} to="/account/shipments">
        shipments page
      </Anchor>{' '}
      and press Print.
    </Alert>
  );
}

/** While the server makes the PDF. */
function Preparing() {
  return (
    <Center py={80}>
      <Stack align="center" gap="xs" role="status" aria-label="Preparing labels">
        <Loader />
        <Text c="dimmed" size="sm">
          Preparing labels…
        </Text>
      </Stack>
    </Center>
  );
}

/**
 * /account/print?tids=A,B: the server renders the 4x6 in labels as one PDF; the page shows it and opens the
 * print dialog as soon as it has loaded.
 */
export default function PrintRoute() {
  const [search] = useSearchParams();
  const tids = tidsFromSearch(search);
  const { labels, url } = useLabelsPdf(tids);
  const frame = useRef<HTMLIFrameElement>(null);
  const printed = useRef(false);

  const print = () => {
    const w = frame.current?.contentWindow;
    try {
      w?.focus();
      w?.print();
      // Lets a test (and a curious reader of the DOM) see that the dialog was asked for.
      frame.current?.setAttribute('data-print-requested', 'true');
    } catch {
      // A browser that will not print a PDF frame: open it in its own tab, where the viewer prints.
      if (url) window.open(url, '_blank');
    }
  };

  const onFrameLoad = () => {
    if (printed.current || !url) return;
    printed.current = true;
    print();
  };

  return (
    <>
      <PageHeader
        title="Print labels"
        description={
          tids.length
            ? `${tids.length} ${tids.length === 1 ? 'label' : 'labels'}, 4 × 6 in. The print dialog opens by itself; if it does not, press Print.`
            : undefined
        }
        actions={
          <>
            <Button component={Link} to="/account/shipments" variant="default" leftSection={<IconArrowLeft size={16} />}>
              Back to shipments
            </Button>
            {url && (
              <>
                <Button component="a" href={url} download="labels.pdf" variant="default" leftSection={<IconDownload size={16} />}>
                  Download PDF
                </Button>
                <Button onClick={print} leftSection={<IconPrinter size={16} />}>
                  Print
                </Button>
              </>
            )}
          </>
        }
      />
      {tids.length === 0 ? (
        <NoneChosen />
      ) : labels.isError ? (
        <Alert color="red" title="Could not make the labels" data-testid="print-error">
          {(labels.error as Error).message}
        </Alert>
      ) : !url ? (
        <Preparing />
      ) : (
        <Paper p={0} style={{ overflow: 'hidden' }}>
          <iframe
            ref={frame}
            src={url}
            title="Shipping labels"
            data-testid="labels-frame"
            onLoad={onFrameLoad}
            style={{ width: '100%', height: '75vh', border: 0, display: 'block' }}
          />
        </Paper>
      )}
    </>
  );
}
