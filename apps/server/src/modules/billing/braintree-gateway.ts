import type { Config } from '../../config.ts';
import type { PaymentGateway } from './gateway.ts';

/** The Braintree adapter, when all four BRAINTREE_* settings are given; null means "use the sandbox". */
export function createBraintreeGateway(config: Config): PaymentGateway | null {
  if (!config.BRAINTREE_MERCHANT_ID || !config.BRAINTREE_PUBLIC_KEY || !config.BRAINTREE_PRIVATE_KEY || !config.BRAINTREE_ENVIRONMENT) return null;
  throw new Error('The Braintree adapter is not built yet: unset BRAINTREE_* to use the built-in sandbox gateway');
}
