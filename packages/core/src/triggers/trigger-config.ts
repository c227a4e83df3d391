import { z } from 'zod';

/** A serialisable trigger description, stored in a thread's policy. */
export type TriggerConfig =
  /** Fires when the prompt's messages exceed the planner's target (the window minus every reserve). */
  | { kind: 'target' }
  | { kind: 'tokens'; threshold?: number | undefined; fraction?: number | undefined }
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
      })
      .refine((value) => (value.threshold === undefined) !== (value.fraction === undefined), {
        message: 'a token trigger takes exactly one of threshold or fraction',
      }),
    z.object({ kind: z.literal('turns'), maxTurns: z.number().int().min(0) }),
    z.object({ kind: z.literal('any'), triggers: z.array(triggerConfigSchema).min(1) }),
    z.object({ kind: z.literal('all'), triggers: z.array(triggerConfigSchema).min(1) }),
    z.object({ kind: z.literal('manual') }),
  ]),
);
