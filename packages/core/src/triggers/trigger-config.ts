import { z } from 'zod';

/**
 * The AI SDK compaction layer's arithmetic (the `seed-003` preset, ADR-0184): compact at
 * (window − systemReserve − outputReserve − safetyBuffer) × thresholdPercent, for whatever window the thread has.
 */
export interface RemainderThreshold {
  systemReserve: number;
  outputReserve: number;
  safetyBuffer: number;
  thresholdPercent: number;
}

/** A serialisable trigger description, stored in a thread's policy. */
export type TriggerConfig =
  /** Fires when the prompt's messages exceed the planner's target (the window minus every reserve). */
  | { kind: 'target' }
  | {
      kind: 'tokens';
      threshold?: number | undefined;
      fraction?: number | undefined;
      remainder?: RemainderThreshold | undefined;
    }
  | { kind: 'turns'; maxTurns: number }
  | { kind: 'any'; triggers: TriggerConfig[] }
  | { kind: 'all'; triggers: TriggerConfig[] }
  | { kind: 'manual' };

export const triggerConfigSchema: z.ZodType<TriggerConfig> = z.lazy(() =>
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('target') }),
    z
      .object({
        kind: z.literal('tokens'),
        threshold: z.number().int().positive().optional(),
        fraction: z.number().gt(0).max(1).optional(),
        remainder: z
          .object({
            systemReserve: z.number().int().min(0),
            outputReserve: z.number().int().min(0),
            safetyBuffer: z.number().int().min(0),
            thresholdPercent: z.number().gt(0).max(1),
          })
          .optional(),
      })
      .refine(
        (value) =>
          [value.threshold, value.fraction, value.remainder].filter((given) => given !== undefined).length ===
          1,
        { message: 'a token trigger takes exactly one of threshold, fraction or remainder' },
      ),
    z.object({ kind: z.literal('turns'), maxTurns: z.number().int().min(0) }),
    z.object({ kind: z.literal('any'), triggers: z.array(triggerConfigSchema).min(1) }),
    z.object({ kind: z.literal('all'), triggers: z.array(triggerConfigSchema).min(1) }),
    z.object({ kind: z.literal('manual') }),
  ]),
);
