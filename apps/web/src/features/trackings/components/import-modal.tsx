import { Alert, Badge, Button, Code, FileInput, Group, Modal, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { IconFileTypeCsv } from '@tabler/icons-react';
import { useState } from 'react';
import { IMPORT_COLUMNS } from '@shiptrail/contract';
import { useImportTrackings } from '../api/import-trackings';

export function ImportModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const upload = useImportTrackings();
  const close = () => {
    setFile(null);
    upload.reset();
    onClose();
  };
  const result = upload.data?.payload;
  return (
    <Modal opened={opened} onClose={close} title="Import trackings from CSV" size="lg">
      <Stack>
        <Text size="sm" c="dimmed">
          One tracking per row. The first row names the columns: <Code>tid</Code> is required;{' '}
          {IMPORT_COLUMNS.slice(1).map((c, i) => (
            <span key={c}>
              <Code>{c}</Code>
              {i < IMPORT_COLUMNS.length - 2 ? ', ' : ''}
            </span>
          ))}{' '}
          are optional. Leave courier empty to detect it.
        </Text>
        <FileInput
          label="CSV file"
          placeholder="Choose a .csv file"
          accept=".csv,text/csv"
          leftSection={<IconFileTypeCsv size={18} />}
          value={file}
          onChange={setFile}
          clearable
        />
        {upload.isError && <Alert color="red">{upload.error.message}</Alert>}
        {result && (
          <>
            <Alert color={result.created ? 'teal' : 'yellow'} data-testid="import-result">
              {result.created} of {result.rows.length} rows imported.
            </Alert>
            <ScrollArea.Autosize mah={260}>
              <Table fz="sm" striped>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Row</Table.Th>
                    <Table.Th>Tracking number</Table.Th>
                    <Table.Th>Result</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {result.rows.map((r) => (
                    <Table.Tr key={r.row}>
                      <Table.Td>{r.row}</Table.Td>
                      <Table.Td>{r.tid}</Table.Td>
                      <Table.Td>
                        <Badge size="sm" variant="light" color={r.status === 'created' ? 'teal' : 'red'}>
                          {r.status}
                        </Badge>{' '}
                        {r.status === 'error' && (
                          <Text span size="xs">
                            {r.message}
                          </Text>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea.Autosize>
          </>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            {result ? 'Done' : 'Cancel'}
          </Button>
          <Button onClick={() => file && upload.mutate(file)} loading={upload.isPending} disabled={!file || upload.isPending}>
            Import
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
