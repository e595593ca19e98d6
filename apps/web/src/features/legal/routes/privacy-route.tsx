import { Container, Title } from '@mantine/core';
import { PrivacyContent } from '../../../components/legal/privacy-content';

export default function PrivacyRoute() {
  return (
    <Container size="md" py={{ base: 40, md: 72 }}>
      <Title order={1} mb="xs">
        Privacy policy
      </Title>
      <PrivacyContent />
    </Container>
  );
}
