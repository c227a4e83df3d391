/**
 * Calibration samples from pi sessions: how much the API-reported prompt grew between two
 * consecutive assistant calls, and the messages that were appended in between.
 */
import type { Message } from '@compactor/core';
import type { PiMessage, PiRecord } from './pi-session.js';
import { promptTokens, toCoreMessage } from './pi-session.js';

export interface PromptGrowthSample {
  file: string;
  model: string;
  /** Index of the uninterrupted chain of calls this sample belongs to (per file). */
  chain: number;
  /** The previous assistant message (sent back as input) and everything appended after it. */
  messages: Message[];
  /** Prompt tokens of this call minus those of the previous call. */
  actualTokens: number;
}

export interface SampleExtraction {
  samples: PromptGrowthSample[];
  /** Why candidate samples were left out, and how many. */
  skipped: Record<string, number>;
}

const completedStops = new Set(['toolUse', 'stop', 'length']);

/**
 * Walks a session's records in order. A call is usable when it completed (`toolUse`, `stop`,
 * `length`) and reports a prompt. The chain of calls breaks at anything that changes the prompt
 * other than appending messages: a compaction, a model or thinking-level change, a new session
 * header, or an aborted / failed call (whose partial output pi may or may not resend).
 * Candidate samples are also dropped when they cannot be measured faithfully: a non-positive
 * growth (cache accounting noise), a tool result carrying an image (core tool results hold
 * text only), or a user-run shell command (`bashExecution`, whose wire text pi formats itself).
 */
export function promptGrowthSamples(file: string, records: readonly PiRecord[]): SampleExtraction {
  const samples: PromptGrowthSample[] = [];
  const skipped: Record<string, number> = {};
  const skip = (reason: string) => {
    skipped[reason] = (skipped[reason] ?? 0) + 1;
  };
  let previous: { prompt: number; model: string } | undefined;
  let appended: Message[] = [];
  let unfaithful: string | undefined;
  let chain = 0;
  let messageIndex = 0;
  const breakChain = () => {
    previous = undefined;
    appended = [];
    unfaithful = undefined;
    chain++;
  };
  for (const record of records) {
    if (record.type !== 'message' || !record.message) {
      breakChain();
      continue;
    }
    const message: PiMessage = record.message;
    const core = toCoreMessage(message, `${file}#${messageIndex++}`);
    if (message.role !== 'assistant') {
      if (message.role === 'bashExecution') unfaithful = 'user shell command in between';
      const blocks = Array.isArray(message.content) ? message.content : [];
      if (message.role === 'toolResult' && blocks.some((block) => block.type === 'image')) {
        unfaithful = 'image in a tool result';
      }
      appended.push(core);
      continue;
    }
    const usable =
      message.usage !== undefined &&
      completedStops.has(message.stopReason ?? '') &&
      promptTokens(message.usage) > 0;
    if (!usable) {
      if (previous) skip('aborted or failed call');
      breakChain();
      continue;
    }
    const prompt = promptTokens(message.usage!);
    const model = message.model ?? 'unknown';
    if (previous && previous.model === model) {
      const growth = prompt - previous.prompt;
      if (unfaithful) skip(unfaithful);
      else if (growth <= 0) skip('prompt did not grow');
      else samples.push({ file, model, chain, messages: appended, actualTokens: growth });
    } else if (previous) {
      skip('model changed');
      chain++;
    }
    previous = { prompt, model };
    appended = [core];
    unfaithful = undefined;
  }
  return { samples, skipped };
}
