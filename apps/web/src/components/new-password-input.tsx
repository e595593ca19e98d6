import { PasswordInput, type PasswordInputProps } from '@mantine/core';
import { LIMITS } from '@shiptrail/contract';

/**
 * The field where a person chooses a password (signing up, changing it, accepting an invitation): required, offered to
 * the browser's password manager as a new one, with the contract's minimum length said under it.
 */
export function NewPasswordInput(props: Omit<PasswordInputProps, 'autoComplete' | 'required' | 'description'>) {
  return <PasswordInput autoComplete="new-password" required description={`At least ${LIMITS.signupPasswordMin} characters`} {...props} />;
}
