import { Modal, ScrollArea } from '@mantine/core';
import { TermsContent } from '../../../components/legal/terms-content';

export function TermsModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Modal opened={opened} onClose={onClose} title="Terms of service" size="xl" scrollAreaComponent={ScrollArea.Autosize}>
      <TermsContent />
    </Modal>
  );
}
