// Who hears about a status change (planRecipients, product rules §3-4): the account's own channels with their
// profile defaults, the tracking's customer, each trigger on its own, and one message per address.
import { describe, expect, it } from 'vitest';
import { planRecipients } from './fanout.ts';
import type { StoredSettings } from './settings.ts';

type User = Parameters<typeof planRecipients>[0];
const on = (...triggers: string[]) => ({ triggers: Object.fromEntries(triggers.map((t) => [t, true])), endpoint: '' });
const userWith = (settings: StoredSettings, profile: { email?: string; phone?: string } = {}) =>
  ({ email: 'Ada@Example.com', phone: '(415) 555-0100', settings, ...profile }) as unknown as User;
const noCustomer = { notifyEmail: '', notifyPhone: '' };

describe('planRecipients', () => {
  it("tells the account's own email, phone and webhook, and the tracking's customer, in that order", () => {
    const user = userWith({
      receiveNotification: {
        email: on('Delivered'),
        phone: on('Delivered'),
        webhook: { ...on('Delivered'), endpoint: 'https://hooks.example/x' },
      },
      sendNotification: { email: on('Delivered'), phone: on('Delivered') },
    });
    expect(planRecipients(user, { notifyEmail: ' Cust@Example.COM ', notifyPhone: '415-555-0199' }, 'Delivered')).toEqual([
      { channel: 'email', audience: 'receive', recipient: 'ada@example.com' },
      { channel: 'sms', audience: 'receive', recipient: '+14155550100' },
      { channel: 'webhook', audience: 'receive', recipient: 'https://hooks.example/x' },
      { channel: 'email', audience: 'send', recipient: 'cust@example.com' },
      { channel: 'sms', audience: 'send', recipient: '+14155550199' },
    ]);
  });

  it('uses an endpoint of its own over the profile, lower-cased for email', () => {
    const user = userWith({
      receiveNotification: {
        email: { ...on('Exception'), endpoint: 'Ops@Shop.example' },
        phone: { ...on('Exception'), endpoint: '212 555 0142' },
      },
    });
    expect(planRecipients(user, noCustomer, 'Exception')).toEqual([
      { channel: 'email', audience: 'receive', recipient: 'ops@shop.example' },
      { channel: 'sms', audience: 'receive', recipient: '+12125550142' },
    ]);
  });

  it('tells nobody on a channel whose trigger is off for this status', () => {
    const user = userWith({
      receiveNotification: {
        email: on('InTransit'),
        phone: on('InTransit'),
        webhook: { ...on('InTransit'), endpoint: 'https://hooks.example/x' },
      },
      sendNotification: { email: on('InTransit'), phone: on('InTransit') },
    });
    expect(planRecipients(user, { notifyEmail: 'c@example.com', notifyPhone: '415-555-0199' }, 'Delivered')).toEqual([]);
    expect(planRecipients(user, { notifyEmail: 'c@example.com', notifyPhone: '415-555-0199' }, 'InTransit')).toHaveLength(5);
  });

  it('skips a channel with nowhere to send: no webhook URL, no usable phone, no customer address', () => {
    const user = userWith(
      {
        receiveNotification: { email: on('Delivered'), phone: on('Delivered'), webhook: on('Delivered') },
        sendNotification: { email: on('Delivered'), phone: on('Delivered') },
      },
      { email: '', phone: 'not a phone' },
    );
    expect(planRecipients(user, { notifyEmail: '  ', notifyPhone: '12' }, 'Delivered')).toEqual([]);
  });

  it("sends one message to an address that is both the account's and the customer's: the account's own", () => {
    const user = userWith({
      receiveNotification: { email: on('Delivered'), phone: on('Delivered') },
      sendNotification: { email: on('Delivered'), phone: on('Delivered') },
    });
    expect(planRecipients(user, { notifyEmail: 'ADA@example.com', notifyPhone: '+1 415 555 0100' }, 'Delivered')).toEqual([
      { channel: 'email', audience: 'receive', recipient: 'ada@example.com' },
      { channel: 'sms', audience: 'receive', recipient: '+14155550100' },
    ]);
  });
});
