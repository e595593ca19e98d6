// Named prepared statements for the database thread (decision 148). PGlite's `query` sends every statement as an
// unnamed one: PostgreSQL parses, analyses and plans it again each time, and a second describe asks for its parameter
// types. On the embedded database every statement holds the only connection, and in a status change's transaction
// (pg-boss's job insert above all, a long CTE) that work was 40 to 60% of its time. Here a statement with parameters is
// parsed once under a name and then only bound and executed, as PostgreSQL's own drivers do with prepared statements;
// the answer is read by PGlite's own parser, so rows, types and errors are what `query` gives.
import { messages, parse, protocol, type PGlite, type QueryOptions, type Results } from '@electric-sql/pglite';

type Message = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];
interface Prepared {
  name: string;
  types: number[];
}
interface Internals {
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
}

/** How many statements stay prepared (least recently used closed first): the application has about a hundred; each holds its plan in the thread. */
export const PREPARED_LIMIT = 200;
const RESULT_TYPE_CHANGED = '0A000';

export class PreparedStatements {
  private readonly byText = new Map<string, Prepared>();
  private seq = 0;
  /** Statements prepared since the start (a test reads it: the same text is prepared once). */
  prepared = 0;

  private readonly pglite: PGlite;
  constructor(pglite: PGlite) {
    this.pglite = pglite;
  }

  /** Whether `query` takes this statement: one with parameters and no option it cannot honour here. */
  static handles(params: unknown[] | undefined, options: QueryOptions | undefined): boolean {
    if (!params?.length) return false;
    const o = (options ?? {}) as QueryOptions & Record<string, unknown>;
    return !o.paramTypes && !o.blob && !o.serializers && !o.onNotice;
  }

  /** A statement on its own (PGlite's turn taken as `pglite.query` takes it), or inside the open transaction. */
  query<T>(sql: string, params: unknown[], options: QueryOptions | undefined, inTransaction: boolean): Promise<Results<T>> {
    const db = this.pglite as unknown as Internals;
    const once = () => this.run<T>(sql, params, options, inTransaction);
    // A table changed under the statement (0A000, only after DDL at run time): on its own it is prepared again and
    // run once more, as PostgreSQL's drivers do; inside a transaction the transaction has failed and says so.
    const run = () =>
      once().catch((err: unknown) => {
        if (inTransaction || (err as { code?: string }).code !== RESULT_TYPE_CHANGED) throw err;
        return once();
      });
    return inTransaction ? db._runExclusiveQuery(run) : db._runExclusiveTransaction(() => db._runExclusiveQuery(run));
  }

  private send(bytes: Uint8Array): Promise<Message[]> {
    return this.pglite.execProtocolStream(bytes, { syncToFs: false });
  }

  private async run<T>(sql: string, params: unknown[], options: QueryOptions | undefined, inTransaction: boolean): Promise<Results<T>> {
    const { serialize } = protocol;
    const out: Message[] = [];
    let st: Prepared | undefined;
    try {
      st = await this.statement(sql);
      const values = params.map((v, i) => {
        if (v === null || v === undefined) return null;
        const serializer = this.pglite.serializers[st!.types[i]!];
        return serializer ? serializer(v) : String(v);
      });
      out.push(...(await this.send(serialize.bind({ statement: st.name, values }))));
      out.push(...(await this.send(serialize.describe({ type: 'P' }))));
      out.push(...(await this.send(serialize.execute({}))));
    } catch (err) {
      // A table changed under a statement whose result it fixed: prepare it again next time.
      if (st && (err as { code?: string }).code === RESULT_TYPE_CHANGED) this.forget(sql, st);
      throw err instanceof messages.DatabaseError ? Object.assign(err, { query: sql, params, queryOptions: options }) : err;
    } finally {
      out.push(...(await this.send(serialize.sync())));
    }
    if (!inTransaction) await this.pglite.syncToFs();
    return parse.parseResults(out, this.pglite.parsers, options)[0] as Results<T>;
  }

  /** The named statement for `sql`, parsed and described once (its parameter types are what values are serialized to). */
  private async statement(sql: string): Promise<Prepared> {
    const known = this.byText.get(sql);
    if (known) {
      this.byText.delete(sql);
      this.byText.set(sql, known);
      return known;
    }
    const { serialize } = protocol;
    const name = `shiptrail_${++this.seq}`;
    await this.send(serialize.parse({ name, text: sql }));
    const described = await this.send(serialize.describe({ type: 'S', name }));
    const st = { name, types: parse.parseDescribeStatementResults(described) };
    this.byText.set(sql, st);
    this.prepared++;
    if (this.byText.size > PREPARED_LIMIT) {
      const [oldText, oldest] = this.byText.entries().next().value as [string, Prepared];
      await this.close(oldText, oldest);
    }
    return st;
  }

  private forget(sql: string, st: Prepared): void {
    if (this.byText.get(sql) === st) this.byText.delete(sql);
  }

  private async close(sql: string, st: Prepared): Promise<void> {
    this.forget(sql, st);
    await this.send(protocol.serialize.close({ type: 'S', name: st.name }));
  }
}
