import { z } from 'zod';
import { contentPartSchema } from './content.js';

export const roleSchema = z.enum(['system', 'user', 'assistant', 'tool']);
/** A message's role: system, user, assistant or tool. */
export type Role = z.infer<typeof roleSchema>;

/** Which content part types each role may carry in the canonical log. */
const allowedPartsByRole: Record<Role, ReadonlySet<string>> = {
  system: new Set(['text']),
  user: new Set(['text', 'image', 'document']),
  assistant: new Set(['text', 'tool_call', 'reasoning', 'image', 'document', 'opaque']),
  tool: new Set(['tool_result']),
};

export const messageSchema = z
  .object({
    id: z.string().min(1),
    role: roleSchema,
    content: z.array(contentPartSchema).min(1),
    /** Injected by a harness (reminders, imported summaries), not said by a person or the model. */
    synthetic: z.boolean().optional(),
    /** Set when the message belongs to a subagent; absent for root-level messages. */
    subagentId: z.string().optional(),
    /** Never compacted away (user constraints the operator marks as such). */
    pinned: z.boolean().optional(),
    createdAt: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((message, context) => {
    const allowed = allowedPartsByRole[message.role];
    message.content.forEach((part, index) => {
      if (!allowed.has(part.type)) {
        context.addIssue({
          code: 'custom',
          path: ['content', index, 'type'],
          message: `a ${message.role} message cannot carry a ${part.type} part`,
        });
      }
    });
  });
/** A message of the canonical log. */
export type Message = z.infer<typeof messageSchema>;
