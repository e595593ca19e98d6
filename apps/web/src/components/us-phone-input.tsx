import { TextInput, type TextInputProps } from '@mantine/core';

/**
 * A phone field that takes US numbers only (product rules §5, §9; the contract's optionalUsPhone): the phone keyboard,
 * an example number, and the rule said first in its description, then `note` (what the number is for).
 */
export function UsPhoneInput({ note, ...props }: Omit<TextInputProps, 'type' | 'description'> & { note?: string }) {
  return (
    <TextInput type="tel" placeholder="(212) 555-0142" description={note ? `US numbers only. ${note}` : 'US numbers only'} {...props} />
  );
}
