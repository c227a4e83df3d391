import { initialSchema } from './0001-initial-schema.js';
import type { Migration } from './migration.js';

export type { Migration } from './migration.js';

/** Every schema version this package knows, oldest first; append new ones, never edit shipped ones. */
export const MIGRATIONS: readonly Migration[] = [initialSchema];
