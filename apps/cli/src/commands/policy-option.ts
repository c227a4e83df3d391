import { readFile } from 'node:fs/promises';
import { type CompactionPolicy, partialPolicySchema, policyPresetNameSchema } from '@compactor/core';

/**
 * `--policy NAME|FILE`: a policy preset's name (ADR-0106), or a JSON file holding a partial policy
 * (which may itself name a preset and override some of its fields).
 */
export async function readPolicyOption(value: string): Promise<Partial<CompactionPolicy>> {
  const preset = policyPresetNameSchema.safeParse(value);
  const raw: unknown = preset.success ? { preset: preset.data } : JSON.parse(await readFile(value, 'utf8'));
  return partialPolicySchema.parse(raw);
}
