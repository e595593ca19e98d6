import type { z } from 'zod';
// The contract's index installs the human validation messages, but the build drops the index's side effects
// (it keeps only the schemas a page uses), so every form that validates installs them here.
import '@shiptrail/contract/zod-messages';

/**
 * A @mantine/form validator from a contract zod schema: the same schema and messages the server uses
 * (ARCHITECTURE §3). Field paths are the issue paths joined with dots, as @mantine/form names nested fields.
 */
export function zodResolver<T>(schema: z.ZodType) {
  return (values: T): Record<string, string> => {
    const result = schema.safeParse(values);
    if (result.success) return {};
    const errors: Record<string, string> = {};
    for (const issue of result.error.issues) {
      const key = issue.path.map(String).join('.') || '_form';
      if (!(key in errors)) errors[key] = issue.message;
    }
    return errors;
  };
}
