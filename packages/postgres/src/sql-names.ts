import { ValidationError } from '@compactor/core';

/** Every table the stores use, schema-qualified and quoted, ready to splice into SQL. */
export interface SqlNames {
  schema: string;
  quotedSchema: string;
  threads: string;
  events: string;
  planHeads: string;
  plans: string;
  summaries: string;
  lifecycleEvents: string;
  migrations: string;
  /** The LISTEN/NOTIFY channel of lifecycle events appended in this schema. */
  lifecycleChannel: string;
}

/** Lower-case identifiers only: they need no quoting rules beyond the quotes, and fit a channel name. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,39}$/;

/**
 * The quoted, schema-qualified table names and the lifecycle channel of one schema.
 *
 * @param schema - The schema name.
 * @returns The names.
 * @throws ValidationError unless the name is lower-case letters, digits and _ (at most 40, not starting with a digit).
 */
export function sqlNames(schema: string): SqlNames {
  if (!SCHEMA_NAME.test(schema)) {
    throw new ValidationError('invalid PostgreSQL schema name', [
      {
        path: 'schema',
        message: 'lower-case letters, digits and _, at most 40 characters, not starting with a digit',
      },
    ]);
  }
  const quotedSchema = `"${schema}"`;
  const table = (name: string) => `${quotedSchema}."${name}"`;
  return {
    schema,
    quotedSchema,
    threads: table('threads'),
    events: table('events'),
    planHeads: table('plan_heads'),
    plans: table('plans'),
    summaries: table('summaries'),
    lifecycleEvents: table('lifecycle_events'),
    migrations: table('schema_migrations'),
    lifecycleChannel: `compactor_lifecycle_${schema}`,
  };
}
