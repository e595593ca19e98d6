import './zod-messages.ts';
export * from './constants.ts';
export * from './messages.ts';
export * from './common.ts';
export * from './accounts.ts';
export * from './trackings.ts';
export * from './endpoints.ts';
export * from './notifications.ts';
export * from './input-guards.ts';
