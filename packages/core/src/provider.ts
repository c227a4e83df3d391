import { z } from 'zod';

/** The request formats the renderer and the tokenizer understand. */
export const providerNameSchema = z.enum(['anthropic', 'openai-chat', 'openai-responses', 'ai-sdk']);
/** One of the four request formats. */
export type ProviderName = z.infer<typeof providerNameSchema>;

/** A tool the agent may call, as the runtime declares it (JSON Schema input). */
export const toolDefinitionSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
});
/** A tool's name, description and JSON Schema input. */
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;
