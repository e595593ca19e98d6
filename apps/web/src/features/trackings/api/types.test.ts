import { describe, expect, it } from 'vitest';
import type { Checkpoint } from '@shiptrail/contract';
import { lastCheckPointText } from './types';

const delivered: Checkpoint = {
  status: 'Delivered',
  location: 'OTTAWA, ON',
  message: 'Item successfully delivered',
  time: '2026-11-20T15:04:05.000Z',
};
const signature: Checkpoint = {
  status: 'Delivered',
  location: 'OTTAWA, ON',
  message: 'Signature image recorded',
  time: '2026-11-20T15:04:05.000Z',
};

describe('last checkpoint text', () => {
  it('shows the last checkpoint the server names, as "message · location"', () => {
    expect(lastCheckPointText({ lastCheckPoint: delivered, checkpoints: [delivered, signature] })).toBe(
      'Item successfully delivered · OTTAWA, ON',
    );
  });
  it('without one, takes the first checkpoint in the server order (newest first, ties as the carrier listed them)', () => {
    expect(lastCheckPointText({ lastCheckPoint: null, checkpoints: [delivered, signature] })).toBe(
      'Item successfully delivered · OTTAWA, ON',
    );
    expect(lastCheckPointText({ lastCheckPoint: null, checkpoints: [{ ...signature, location: null }] })).toBe('Signature image recorded');
  });
  it('is empty when the carrier reported nothing yet', () => {
    expect(lastCheckPointText({ lastCheckPoint: null, checkpoints: [] })).toBe('');
  });
});
