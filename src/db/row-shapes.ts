import pg from 'pg';

/**
 * Rows of a named (prepared) statement built from the statement's remembered columns. `pg` works
 * out each result's columns afresh: for every column of every result it looks up the type's parser
 * and builds a template object, then copies that template for each row. A hot statement of the
 * transaction path returns the same 71 columns every time, so here the column names and parsers
 * are kept per statement name (and per connection's type overrides), checked against each result's
 * description (names, types, text format) and rebuilt when they differ; each row is then a plain
 * object filled in column order. The values are those `pg` gives: the same parser per column,
 * `null` for SQL NULL, a later duplicate name overwriting an earlier one.
 *
 * Everything else (errors, the extended protocol, prepared names, timeouts, multiple results) stays
 * `pg`'s own: the class only replaces `handleRowDescription` and `handleDataRow` of `pg.Query`, and
 * hands a description it does not take (binary columns, a `__proto__` column, a second result) back
 * to them.
 */

type Parser = (value: string) => unknown;

interface FieldDescription {
  name: string;
  dataTypeID: number;
  format: string;
}

/** The columns of one statement's result, as last described. */
export interface RowShape {
  names: string[];
  oids: number[];
  parsers: Parser[];
}

interface TypeSource {
  getTypeParser(oid: number, format: string): Parser;
}

/** What this class uses of `pg.Query` and its `Result` (pg/lib/query.js, pg/lib/result.js). */
interface PgQuery {
  _result: { command: string | null; fields: FieldDescription[]; rows: unknown[]; _types?: TypeSource };
  _canceledDueToError: unknown;
  _accumulateRows: boolean;
  handleRowDescription(message: { fields: FieldDescription[] }): void;
  handleDataRow(message: { fields: Array<string | null> }): void;
}

type PgQueryClass = new (
  config: pg.QueryConfig,
  values: undefined,
  callback: (error: Error | null, result: pg.QueryResult) => void,
) => PgQuery;

/** Shapes by statement name, per type source (a client's overrides; one per connection). */
const shapesBySource = new WeakMap<TypeSource, Map<string, RowShape>>();

const fitsShape = (shape: RowShape, fields: FieldDescription[]) => {
  if (shape.names.length !== fields.length) return false;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (
      field.name !== shape.names[i] ||
      field.dataTypeID !== shape.oids[i] ||
      (field.format !== 'text' && field.format !== undefined)
    )
      return false;
  }
  return true;
};

/** The remembered shape for `name` if it fits `fields`, else a new one (null: `pg` builds these rows). */
export function shapeFor(source: TypeSource, name: string, fields: FieldDescription[]): RowShape | null {
  let shapes = shapesBySource.get(source);
  const known = shapes?.get(name);
  if (known && fitsShape(known, fields)) return known;
  if (fields.some((field) => (field.format !== 'text' && field.format !== undefined) || field.name === '__proto__'))
    return null;
  const shape: RowShape = {
    names: fields.map((field) => field.name),
    oids: fields.map((field) => field.dataTypeID),
    parsers: fields.map((field) => source.getTypeParser(field.dataTypeID, 'text')),
  };
  if (!shapes) shapesBySource.set(source, (shapes = new Map()));
  shapes.set(name, shape);
  return shape;
}

/** One row: each column's text through its parser, in column order. */
export function buildRow(shape: RowShape, values: Array<string | null>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  const { names, parsers } = shape;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    row[names[i]!] = value === null || value === undefined ? null : parsers[i]!(value);
  }
  return row;
}

class ShapedQuery extends (pg.Query as unknown as PgQueryClass) {
  private shape: RowShape | null = null;

  constructor(
    private readonly statementName: string,
    config: pg.QueryConfig,
    callback: (error: Error | null, result: pg.QueryResult) => void,
  ) {
    super(config, undefined, callback);
  }

  override handleRowDescription(message: { fields: FieldDescription[] }): void {
    const result = this._result;
    // A second result of the same query (not for a prepared statement, but pg's own path knows how).
    this.shape = result.command || !result._types ? null : shapeFor(result._types, this.statementName, message.fields);
    if (!this.shape) return super.handleRowDescription(message);
    result.fields = message.fields;
    this._accumulateRows = true;
  }

  override handleDataRow(message: { fields: Array<string | null> }): void {
    const shape = this.shape;
    if (!shape) return super.handleDataRow(message);
    if (this._canceledDueToError) return;
    let row: Record<string, unknown>;
    try {
      row = buildRow(shape, message.fields);
    } catch (error) {
      // As pg: the error is the query's once the server is done with it.
      this._canceledDueToError = error;
      return;
    }
    this._result.rows.push(row);
  }
}

/** A query of the named statement `config.name` whose rows are built from its remembered shape; `done` gets pg's answer. */
export function shapedQuery(
  config: { name: string; text: string; values: unknown[] },
  done: (error: Error | null, result: pg.QueryResult) => void,
): pg.Submittable {
  return new ShapedQuery(config.name, config, done) as unknown as pg.Submittable;
}
