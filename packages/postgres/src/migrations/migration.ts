import type { SqlNames } from '../sql-names.js';

/** One schema change, applied once, in order, inside the migration transaction. */
export interface Migration {
  version: number;
  name: string;
  statements(names: SqlNames): string[];
}
