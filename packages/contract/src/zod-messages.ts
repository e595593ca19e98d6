// The core's config only, not the whole `z` namespace: the web app's pages that need just a constant from the
// contract should not pull every zod schema type in with this file.
import { config, type $ZodRawIssue } from 'zod/v4/core';

/**
 * zod's built-in messages are written for developers ("Too big: expected string to have <=100 characters").
 * Server replies and web forms show them to people, so every schema check without its own message gets a
 * plain sentence instead. A message a schema sets itself (the product's MSG texts) still wins: zod only asks
 * this map when nothing more specific answered.
 */

type Issue = $ZodRawIssue;

const UNITS: Record<string, [string, string]> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
  map: ['entry', 'entries'],
  file: ['byte', 'bytes'],
};

const count = (n: number | bigint, origin: string | undefined) => {
  const unit = UNITS[origin ?? ''];
  if (!unit) return String(n);
  return `${n} ${Number(n) === 1 ? unit[0] : unit[1]}`;
};

const TYPE_NAMES: Record<string, string> = {
  string: 'Must be text',
  number: 'Must be a number',
  int: 'Must be a whole number',
  bigint: 'Must be a whole number',
  boolean: 'Must be yes or no',
  date: 'Must be a date',
  array: 'Must be a list',
  object: 'Must be a group of fields',
};

const FORMAT_NAMES: Record<string, string> = {
  email: 'Invalid email address',
  url: 'Invalid URL',
  uuid: 'Invalid ID',
  datetime: 'Must be a date and time',
  date: 'Must be a date',
  time: 'Must be a time',
  e164: 'Invalid phone number',
};

const isEmpty = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** A human sentence for a zod issue, or undefined to fall back to zod's own. */
export function humanMessage(issue: Issue): string | undefined {
  switch (issue.code) {
    case 'invalid_type': {
      if (isEmpty(issue.input)) return 'This field is required';
      if (issue.expected === 'number' && typeof issue.input === 'number') return 'Must be a number';
      return TYPE_NAMES[issue.expected] ?? 'This value is not valid';
    }
    case 'too_small': {
      const isSized = issue.origin in UNITS;
      if (isSized && Number(issue.minimum) <= 1 && issue.inclusive !== false) {
        return issue.origin === 'string' ? 'This field is required' : `Choose at least ${count(1, issue.origin)}`;
      }
      if (issue.exact) return `Must be exactly ${count(issue.minimum, issue.origin)}`;
      if (isSized) return `Must be at least ${count(issue.minimum, issue.origin)}`;
      return issue.inclusive === false ? `Must be more than ${issue.minimum}` : `Must be at least ${issue.minimum}`;
    }
    case 'too_big': {
      if (issue.exact) return `Must be exactly ${count(issue.maximum, issue.origin)}`;
      if (issue.origin in UNITS) return `Must be at most ${count(issue.maximum, issue.origin)}`;
      return issue.inclusive === false ? `Must be less than ${issue.maximum}` : `Must be at most ${issue.maximum}`;
    }
    case 'invalid_format':
      return FORMAT_NAMES[issue.format] ?? 'Invalid format';
    case 'invalid_value':
      if (isEmpty(issue.input)) return 'This field is required';
      return issue.values.length === 1 ? 'This value is not allowed' : 'Choose one of the options';
    case 'not_multiple_of':
      return `Must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
    case 'invalid_union':
    case 'invalid_key':
    case 'invalid_element':
    case 'custom':
      return 'This value is not valid';
    default:
      return undefined;
  }
}

config({ customError: humanMessage });
