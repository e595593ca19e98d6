// The table-owner lint rule (decision 124): every table has an owner, each recorded crossing is real, and the
// rule refuses a table named outside its owner.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { CROSSINGS, TABLE_OWNERS, tableOwnerRule } from './eslint/table-owners.mjs';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../apps/server/src');
const schema = readFileSync(path.join(src, 'db/schema.ts'), 'utf8');
const tables = [...schema.matchAll(/export const (\w+) =\s*pgTable\(\s*'(\w+)'/g)].map((m) => ({ name: m[1], table: m[2] }));

describe('table owners', () => {
  it('every table of the schema has exactly one owner, and the owner exists', () => {
    expect(tables.length).toBeGreaterThan(20);
    for (const { table } of tables) {
      expect(TABLE_OWNERS[table], `no owner for ${table}`).toBeTruthy();
      expect(existsSync(path.join(src, TABLE_OWNERS[table])), TABLE_OWNERS[table]).toBe(true);
    }
    expect(Object.keys(TABLE_OWNERS).sort()).toEqual(tables.map((t) => t.table).sort());
  });

  it('each recorded crossing is a file that still names the table (the list only shrinks)', () => {
    for (const [table, files] of Object.entries(CROSSINGS)) {
      const variable = tables.find((t) => t.table === table)?.name;
      expect(variable, table).toBeTruthy();
      for (const [file, why] of Object.entries(files)) {
        expect(why.length, `${table} in ${file}: a reason`).toBeGreaterThan(10);
        const text = readFileSync(path.join(src, file), 'utf8');
        const named =
          new RegExp(`import[^;]*\\b${variable}\\b[^;]*from '[^']*db/schema`).test(text) ||
          new RegExp(`\\b(from|join|into|update)\\s+"?${table}\\b`, 'i').test(text) ||
          new RegExp(`schema\\.${variable}\\b`).test(text);
        expect(named, `${file} no longer names ${table}: remove the crossing`).toBe(true);
      }
    }
  });

  it('lint refuses a table named outside its owner, by import, by schema.<table> and in SQL', () => {
    const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });
    const inAccounts = path.join(src, 'modules/accounts/example.repository.ts');
    tester.run('table-owner', tableOwnerRule, {
      valid: [
        { filename: path.join(src, 'modules/billing/example.ts'), code: "import { payments } from '../../db/schema.ts';" },
        { filename: inAccounts, code: "import { users } from '../../db/schema.ts'; const q = sql`select * from users`;" },
        { filename: inAccounts, code: "import type { payments } from '../../db/schema.ts';" },
        { filename: path.join(src, 'modules/billing/payments.ts'), code: "import { users } from '../../db/schema.ts';" },
      ],
      invalid: [
        {
          filename: inAccounts,
          code: "import { payments } from '../../db/schema.ts';",
          errors: [{ message: /payments belongs to modules\/billing\// }],
        },
        {
          filename: inAccounts,
          code: 'const t = schema.ledgerEntries;',
          errors: [{ message: /ledger_entries belongs to modules\/billing\// }],
        },
        {
          filename: inAccounts,
          code: 'const q = sql`update shipment_parcels set x = 1`;',
          errors: [{ message: /shipment_parcels belongs to/ }],
        },
        {
          filename: inAccounts,
          code: 'const q = sql`insert into alerts (x) values (1)`;',
          errors: [{ message: /alerts belongs to modules\/alerts\// }],
        },
      ],
    });
  });
});
