import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const fixturesDirectory = fileURLToPath(new URL('../fixtures/', import.meta.url));

export function fixturePath(relativePath: string): string {
  return `${fixturesDirectory}${relativePath}`;
}

export function readFixture(relativePath: string): string {
  return readFileSync(fixturePath(relativePath), 'utf8');
}
