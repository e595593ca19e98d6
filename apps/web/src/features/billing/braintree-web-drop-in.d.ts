// The package ships no types; this is the part of its API the drop-in card step uses.
declare module 'braintree-web-drop-in' {
  export interface PaymentMethodPayload {
    nonce: string;
    type: string;
    details: Record<string, unknown>;
  }
  export interface Dropin {
    requestPaymentMethod(): Promise<PaymentMethodPayload>;
    teardown(): Promise<void>;
    on(event: 'paymentMethodRequestable' | 'noPaymentMethodRequestable', handler: () => void): void;
  }
  export function create(options: {
    authorization: string;
    container: HTMLElement | string;
    card?: { cardholderName?: { required?: boolean } };
  }): Promise<Dropin>;
  const dropin: { create: typeof create };
  export default dropin;
}
