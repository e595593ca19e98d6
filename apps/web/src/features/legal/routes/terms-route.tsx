import { Container, Title } from '@mantine/core';
import { TermsContent } from '../../../components/legal/terms-content';

export default function TermsRoute() {
  return (
    <Container size="md" py={{ base: 40, md: 72 }}>
      <Title order={1} mb="lg">
        Terms of service
      </Title>
      <TermsContent />
    </Container>
  );
}
