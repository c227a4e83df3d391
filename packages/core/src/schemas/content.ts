import { z } from 'zod';
import { determinismMetadataSchema, toolDurabilitySchema } from '../durability/durability.js';

export const toolOutcomeSchema = z.enum(['success', 'failure', 'partial']);
/** How a tool call ended: success, failure or partial. */
export type ToolOutcome = z.infer<typeof toolOutcomeSchema>;

export const textPartSchema = z.object({ type: z.literal('text'), text: z.string() });

export const toolCallPartSchema = z.object({
  type: z.literal('tool_call'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
});

/** Images and documents are carried by reference (URL or artifact) or inline base64. */
export const mediaSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('url'), url: z.string().min(1) }),
  z.object({ kind: z.literal('base64'), data: z.string() }),
  z.object({ kind: z.literal('artifact'), artifactId: z.string().min(1) }),
]);

export const imagePartSchema = z.object({
  type: z.literal('image'),
  mediaType: z.string().min(1),
  source: mediaSourceSchema,
});

export const documentPartSchema = z.object({
  type: z.literal('document'),
  mediaType: z.string().min(1),
  source: mediaSourceSchema,
  title: z.string().optional(),
});

/**
 * Every tool result is wrapped in an envelope (ADR-0007) so compaction can always recover
 * the tool name, outcome and key fields, and knows how durable the result is.
 */
export const toolResultEnvelopeSchema = z.object({
  toolName: z.string().min(1),
  toolCallId: z.string().min(1),
  outcome: toolOutcomeSchema,
  content: z.union([z.string(), z.record(z.string(), z.unknown())]),
  keyFields: z.record(z.string(), z.unknown()).default({}),
  durability: toolDurabilitySchema.optional(),
  determinism: determinismMetadataSchema.optional(),
  startedAt: z.string().optional(),
  completedAt: z.string().optional(),
  /**
   * Images and documents the tool returned beside its text (a screenshot, a Read of a PNG), in order
   * (ADR-0311). Absent or empty: a text-only result.
   */
  media: z.array(z.discriminatedUnion('type', [imagePartSchema, documentPartSchema])).optional(),
});
/** A tool result with what compaction needs to know about it (ADR-0007). */
export type ToolResultEnvelope = z.infer<typeof toolResultEnvelopeSchema>;

export const toolResultPartSchema = toolResultEnvelopeSchema.extend({ type: z.literal('tool_result') });

export const reasoningPartSchema = z.object({
  type: z.literal('reasoning'),
  text: z.string(),
  /** Provider signature that must be sent back unchanged (Anthropic thinking blocks). */
  signature: z.string().optional(),
  redacted: z.boolean().optional(),
});

/** The providers whose server-side state an opaque part carries (ADR-0250). */
export const opaqueProviderSchema = z.enum(['anthropic', 'openai-responses']);

/**
 * A provider's own wire object kept verbatim (ADR-0250): an Anthropic `compaction` block, an OpenAI
 * Responses reasoning or compaction item with `encrypted_content`. Never summarized, cleared,
 * externalized or trimmed; sent back, unchanged and in place, only to its own provider.
 */
export const opaquePartSchema = z.object({
  type: z.literal('opaque'),
  provider: opaqueProviderSchema,
  /** The wire object as the provider returned it; no field of ours inside. */
  payload: z.record(z.string(), z.unknown()),
});

export const contentPartSchema = z.discriminatedUnion('type', [
  textPartSchema,
  toolCallPartSchema,
  toolResultPartSchema,
  imagePartSchema,
  documentPartSchema,
  reasoningPartSchema,
  opaquePartSchema,
]);

/** Plain text. */
export type TextPart = z.infer<typeof textPartSchema>;
/** A tool call: its id, tool name and input. */
export type ToolCallPart = z.infer<typeof toolCallPartSchema>;
/** A tool result, in its envelope. */
export type ToolResultPart = z.infer<typeof toolResultPartSchema>;
/** An image, by URL, artifact or inline base64. */
export type ImagePart = z.infer<typeof imagePartSchema>;
/** A document (e.g. a PDF), by URL, artifact or inline base64. */
export type DocumentPart = z.infer<typeof documentPartSchema>;
/** A model's reasoning, with the signature some providers need back. */
export type ReasoningPart = z.infer<typeof reasoningPartSchema>;
/** A provider's wire object kept verbatim for that provider alone (ADR-0250). */
export type OpaquePart = z.infer<typeof opaquePartSchema>;
/** Which provider an opaque part belongs to. */
export type OpaqueProvider = z.infer<typeof opaqueProviderSchema>;
/** Any part of a message's content. */
export type ContentPart = z.infer<typeof contentPartSchema>;

/**
 * Whether a message holds a provider's opaque part (ADR-0250): such a message is pinned for the planner.
 *
 * @param message - Its content.
 * @returns True when one of its parts is opaque.
 */
export function holdsOpaquePart(message: { content: readonly ContentPart[] }): boolean {
  for (const part of message.content) if (part.type === 'opaque') return true;
  return false;
}

/** Where an image or document is: a URL, an artifact or inline base64. */
export type MediaSource = z.infer<typeof mediaSourceSchema>;

const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s;

/**
 * The inline data of a medium: base64 data, or the payload of a `data:` URL (base64 in a URL is
 * inline data too, never a reference). A percent-encoded `data:` URL is given back as base64.
 *
 * @param source - The medium's source.
 * @returns The base64 data and the media type a data URL names (when it names one); undefined for
 *   a remote URL or an artifact.
 */
export function inlineMediaData(source: MediaSource): { data: string; mediaType?: string } | undefined {
  if (source.kind === 'artifact') return undefined;
  // A data URL given as "base64" data (an adapter that passed a string through) is read as the URL it is.
  const text = source.kind === 'url' ? source.url : source.data;
  const match = text.startsWith('data:') ? DATA_URL.exec(text) : null;
  if (source.kind === 'base64' && !match) return { data: source.data };
  if (!match) return undefined;
  const mediaType = match[1] ? { mediaType: match[1] } : {};
  const payload = match[3] ?? '';
  if ((match[2] ?? '').split(';').includes('base64')) return { data: payload, ...mediaType };
  let bytes: Uint8Array;
  try {
    bytes = new TextEncoder().encode(decodeURIComponent(payload));
  } catch {
    bytes = new TextEncoder().encode(payload);
  }
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return { data: btoa(binary), ...mediaType };
}
