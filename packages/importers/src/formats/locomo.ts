import type { Message } from '@compactor/core';
import { AdapterReport, type DraftMessage, type DraftPart } from '../shared/draft.js';
import { sanitizeId } from '../shared/ids.js';
import { imagePartFromUrl } from '../shared/media.js';
import type { TranscriptSource } from '../shared/transcript-source.js';
import { asArray, asNumber, asString, isObject, type JsonObject } from '../shared/values.js';
import type { QaProbe } from '../types.js';
import type { AdapterResult, FormatAdapter } from './format-adapter.js';
import { parseLocomoDateTime } from './locomo-dates.js';

/**
 * LoCoMo (`locomo10.json`): long two-person dialogues in sessions. Speaker A is the user,
 * speaker B the assistant; each turn keeps its `dia_id` (`metadata.diaId`, message id
 * `dia-D1-3`); images are URL image parts, their BLIP caption stays in `metadata.blipCaption`.
 * Each session opens with a synthetic user message giving its date and time, as the dataset
 * does, since many questions are about when things happened. The QA items become probes.
 * CC BY-NC 4.0: evaluation use only.
 */
export const locomoAdapter: FormatAdapter = {
  format: 'locomo',
  defaultModel: 'gpt-4o-mini',
  mismatch(source) {
    return samplesOf(source).length === 0
      ? 'not a JSON array of samples with `conversation` and `qa`'
      : undefined;
  },
  listConversations(source) {
    return samplesOf(source).map((sample, index) => ({
      index,
      id: asString(sample.sample_id),
      title: undefined,
    }));
  },
  read(source, conversationIndex) {
    const samples = samplesOf(source);
    return readSample(samples[conversationIndex]!, conversationIndex, samples.length);
  },
};

function samplesOf(source: TranscriptSource): JsonObject[] {
  return source.memo('locomo-samples', () => findSamples(source));
}

function findSamples(source: TranscriptSource): JsonObject[] {
  const json = source.json();
  const candidates = Array.isArray(json) ? json : isObject(json) ? [json] : [];
  const isSample = (value: unknown) =>
    isObject(value) && isObject(value.conversation) && Array.isArray(value.qa);
  return candidates.length > 0 && candidates.every(isSample) ? (candidates as JsonObject[]) : [];
}

function readSample(sample: JsonObject, index: number, count: number): AdapterResult {
  const report = new AdapterReport();
  const conversation = sample.conversation as JsonObject;
  const speakerA = asString(conversation.speaker_a);
  const speakerB = asString(conversation.speaker_b);
  const sessions = Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((match): match is RegExpExecArray => match !== null && Array.isArray(conversation[match[0]]))
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);

  const drafts: DraftMessage[] = [];
  const draftIdByDiaId = new Map<string, string>();
  let startedAt: string | undefined;
  for (const session of sessions) {
    const dateTime = asString(conversation[`session_${session}_date_time`]);
    const createdAt = parseLocomoDateTime(dateTime);
    startedAt ??= createdAt;
    const at = createdAt === undefined ? {} : { createdAt };
    if (dateTime !== undefined) {
      drafts.push({
        id: `locomo-session-${session}`,
        role: 'user',
        synthetic: true,
        ...at,
        metadata: { locomoSession: session, dateTime },
        content: [{ type: 'text', text: `[Session ${session} began at ${dateTime}]` }],
      });
    }
    for (const turn of asArray(conversation[`session_${session}`])) {
      report.sourceRecords += 1;
      if (!isObject(turn)) continue;
      const speaker = asString(turn.speaker);
      const diaId = asString(turn.dia_id);
      let role: 'user' | 'assistant' = 'user';
      if (speaker === speakerB) role = 'assistant';
      else if (speaker !== speakerA) report.warn(`turn ${diaId ?? '?'}: unknown speaker, read as the user`);
      if (role === 'user') report.sourceUserRecords += 1;
      const content: DraftPart[] = [];
      const text = asString(turn.text);
      if (text) content.push({ type: 'text', text });
      for (const url of asArray(turn.img_url))
        if (typeof url === 'string' && url !== '') content.push(imagePartFromUrl(url));
      const id = sanitizeId(`dia-${diaId ?? `s${session}-${drafts.length}`}`);
      if (diaId !== undefined) draftIdByDiaId.set(diaId, id);
      drafts.push({
        id,
        role,
        ...at,
        metadata: {
          ...(diaId === undefined ? {} : { diaId }),
          ...(speaker === undefined ? {} : { speaker }),
          session,
          ...(typeof turn.blip_caption === 'string' ? { blipCaption: turn.blip_caption } : {}),
        },
        content,
      });
    }
  }
  const sampleId = asString(sample.sample_id);
  return {
    drafts,
    report,
    model: undefined,
    conversationCount: count,
    conversationId: sampleId,
    startedAt,
    threadMetadata: { sessions: sessions.length },
    resolveProbes: (messages) => ({
      probes: buildProbes(
        asArray(sample.qa),
        sampleId ?? `conversation-${index}`,
        draftIdByDiaId,
        messages,
        report,
      ),
    }),
  };
}

function buildProbes(
  items: unknown[],
  sampleId: string,
  draftIdByDiaId: Map<string, string>,
  messages: readonly Message[],
  report: AdapterReport,
): QaProbe[] {
  const messageIds = new Set(messages.map((message) => message.id));
  return items.filter(isObject).map((item, index) => {
    const evidence: string[] = [];
    for (const raw of asArray(item.evidence)) {
      for (const token of String(raw)
        .split(/[\s;,]+/)
        .filter(Boolean)) {
        const normalized = normalizeDiaId(token);
        if (normalized === undefined) {
          report.warn(`question ${index}: dropped malformed evidence ${JSON.stringify(token)}`);
        } else if (!evidence.includes(normalized)) {
          evidence.push(normalized);
        }
      }
    }
    const evidenceMessageIds: string[] = [];
    for (const diaId of evidence) {
      const id = draftIdByDiaId.get(diaId);
      if (id !== undefined && messageIds.has(id)) evidenceMessageIds.push(id);
      else report.warn(`question ${index}: evidence ${diaId} names no turn of the conversation`);
    }
    const probe: QaProbe = {
      id: `${sampleId}-qa-${index}`,
      question: asString(item.question) ?? '',
      evidence,
      evidenceMessageIds,
      category: asNumber(item.category) ?? 0,
    };
    if (item.answer !== undefined && item.answer !== null) probe.answer = String(item.answer);
    if (item.adversarial_answer !== undefined && item.adversarial_answer !== null) {
      probe.adversarialAnswer = String(item.adversarial_answer);
    }
    return probe;
  });
}

/** `D1:3`, `D:11:26` (typo) and `D30:05` (zero-padded) all name a turn; `D` alone does not. */
function normalizeDiaId(token: string): string | undefined {
  const match = /^D:?(\d+):0*(\d+)$/.exec(token);
  return match ? `D${Number(match[1])}:${Number(match[2])}` : undefined;
}
