import { hash, verify } from '@node-rs/argon2';

// Argon2id with the library's defaults (19 MiB, t=2): memory-hard, ~17 ms a hash on these machines.
export const hashPassword = (password: string) => hash(password);
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (!stored) {
    // Same work for an account without a password (or none at all), so timing does not tell them apart.
    await hash(password);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
