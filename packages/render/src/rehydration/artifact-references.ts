import {
  type AbridgedMedia,
  type CompactionPlan,
  mediaStandInDescriptions,
  type ThreadMessage,
  type ToolDefinition,
} from '@compactor/core';
import type { ToolExchangeIndex } from '../plan/tool-exchanges.js';

/** Characters an artifact id may continue with: a match must not touch one on either side. */
function isIdCharacter(character: string | undefined): boolean {
  if (character === undefined) return false;
  const code = character.charCodeAt(0);
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 ||
    code === 45
  );
}

/**
 * Whether `text` names `artifactId` as a whole token: `art_abc` is found in "see artifact:art_abc."
 * but not in `art_abcd` or `xart_abc` (ADR-0008's exact-match rule, which also keeps a model from
 * steering rehydration with look-alike ids).
 *
 * @param text - Where to look.
 * @param artifactId - The id to find.
 * @returns The first position of a whole-token match, or -1 (also for an empty id).
 */
export function findArtifactId(text: string, artifactId: string): number {
  if (artifactId === '') return -1;
  let from = 0;
  for (;;) {
    const at = text.indexOf(artifactId, from);
    if (at === -1) return -1;
    if (!isIdCharacter(text[at - 1]) && !isIdCharacter(text[at + artifactId.length])) return at;
    from = at + 1;
  }
}

/**
 * The artifact ids the plan knows: its externalizations, its abridged messages' full texts, and every
 * artifact its summaries list (chained rounds carry older pointers there). Only these can be rehydrated automatically.
 *
 * @param plan - The thread's plan, or null.
 * @returns The ids, sorted (empty without a plan).
 */
export function knownArtifactIds(plan: CompactionPlan | null): string[] {
  if (!plan) return [];
  const ids = new Set<string>();
  for (const record of plan.externalizations) {
    ids.add(record.artifactId);
    for (const artifact of summaryArtifacts(record.summary)) ids.add(artifact.artifactId);
  }
  for (const record of plan.summarizations) {
    for (const artifact of summaryArtifacts(record.summary)) ids.add(artifact.artifactId);
  }
  // An abridged message's full text (ADR-0265) and its inline media (ADR-0310).
  for (const record of plan.abridgements) {
    if (record.artifactId) ids.add(record.artifactId);
    for (const part of record.parts)
      for (const medium of part.media ?? []) if (medium.artifactId) ids.add(medium.artifactId);
  }
  return [...ids].sort();
}

/** A summary's artifacts, listed in its text or thinned out of it (ADR-0330): all are the plan's. */
function summaryArtifacts(summary: CompactionPlan['summarizations'][number]['summary']) {
  return [...summary.artifacts, ...(summary.externalizedArtifacts ?? [])];
}

/**
 * The images and documents the plan's abridgements replaced that can be read back as themselves
 * (ADR-0310), by the id or URL read_artifact takes: the artifact holding inline data, or the URL.
 *
 * @param plan - The thread's plan, or null.
 * @returns Each replaced medium by its artifact id or URL (empty without a plan).
 */
export function abridgedMediaReferences(plan: CompactionPlan | null): Map<string, AbridgedMedia> {
  const references = new Map<string, AbridgedMedia>();
  for (const record of plan?.abridgements ?? []) {
    for (const part of record.parts) {
      for (const medium of part.media ?? []) {
        const key = medium.artifactId ?? medium.url;
        if (key !== undefined && !references.has(key)) references.set(key, medium);
      }
    }
  }
  return references;
}

export interface ArtifactReference {
  artifactId: string;
  trigger: 'message' | 'tool_call' | 'tool_schema' | 'hint';
}

/**
 * Artifact ids named by the agent's latest message (its text) or by a pending tool call (any string
 * in its input), in order of appearance: the message first, then the pending calls in log order.
 */
export function findArtifactReferences(
  messages: readonly ThreadMessage[],
  exchanges: ToolExchangeIndex,
  agent: string | undefined,
  knownIds: readonly string[],
): ArtifactReference[] {
  if (knownIds.length === 0) return [];
  const found: ArtifactReference[] = [];
  const seen = new Set<string>();
  const scan = (text: string, trigger: ArtifactReference['trigger']) => {
    const hits: { artifactId: string; at: number }[] = [];
    for (const artifactId of knownIds) {
      if (seen.has(artifactId)) continue;
      const at = findArtifactId(text, artifactId);
      if (at !== -1) hits.push({ artifactId, at });
    }
    hits.sort((left, right) => left.at - right.at || (left.artifactId < right.artifactId ? -1 : 1));
    for (const hit of hits) {
      seen.add(hit.artifactId);
      found.push({ artifactId: hit.artifactId, trigger });
    }
  };
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.role !== 'assistant' || message.subagentId !== agent) continue;
    const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
    scan(text, 'message');
    break;
  }
  for (const exchange of exchanges.exchanges) {
    if (exchange.resultMessageIndex !== undefined) continue;
    const message = messages[exchange.callMessageIndex];
    if (!message || message.subagentId !== agent) continue;
    const call = message.content.find((part) => part.type === 'tool_call' && part.id === exchange.callId);
    if (call?.type !== 'tool_call') continue;
    scan(stringsIn(call.input).join('\n'), 'tool_call');
  }
  return found;
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

/**
 * The JSON Schema keyword by which a tool declares whose output it needs (ADR-0191): the names of
 * the tools whose compacted results must be in the prompt when this tool is about to be called,
 * e.g. `apply_patch` with `{ "x-compactor-rehydrate": ["read_file"] }` at the top of its input schema.
 */
export const TOOL_SCHEMA_REHYDRATE_KEYWORD = 'x-compactor-rehydrate';

/** The tool names a tool's input schema says it needs the output of. */
function neededToolOutputs(tool: ToolDefinition | undefined): string[] {
  const declared = tool?.inputSchema[TOOL_SCHEMA_REHYDRATE_KEYWORD];
  if (!Array.isArray(declared)) return [];
  return declared.filter((name): name is string => typeof name === 'string' && name.length > 0);
}

/** Per known artifact: the tools whose output it holds, and its rehydrate hints (with descriptions). */
export interface ArtifactFacts {
  artifactId: string;
  toolNames: string[];
  hints: string[];
}

/**
 * What the plan says about each artifact it knows: the tools whose output it holds (from the
 * externalization's tool outcomes, or an absorbed pointer's "<tool> output" description) and its
 * rehydrate hints.
 *
 * @param plan - The thread's plan.
 * @returns One entry per artifact id, sorted by id.
 */
export function artifactFacts(plan: CompactionPlan | null): ArtifactFacts[] {
  if (!plan) return [];
  const facts = new Map<string, { toolNames: Set<string>; hints: Set<string> }>();
  const entry = (artifactId: string) => {
    let found = facts.get(artifactId);
    if (!found) {
      found = { toolNames: new Set(), hints: new Set() };
      facts.set(artifactId, found);
    }
    return found;
  };
  const fromSummaryArtifacts = (
    artifacts: CompactionPlan['summarizations'][number]['summary']['artifacts'],
  ) => {
    for (const artifact of artifacts) {
      const found = entry(artifact.artifactId);
      found.hints.add(`${artifact.description} ${artifact.rehydrateHint}`);
      const tool = /^(\S+) output$/.exec(artifact.description)?.[1];
      if (tool) found.toolNames.add(tool);
    }
  };
  for (const record of plan.externalizations) {
    const found = entry(record.artifactId);
    found.hints.add(record.rehydrateHint);
    for (const outcome of record.summary.toolOutcomes) found.toolNames.add(outcome.toolName);
    fromSummaryArtifacts(summaryArtifacts(record.summary));
  }
  for (const record of plan.summarizations) fromSummaryArtifacts(summaryArtifacts(record.summary));
  for (const record of plan.abridgements) {
    if (record.artifactId && record.rehydrateHint) entry(record.artifactId).hints.add(record.rehydrateHint);
    // A stored image's caption or a document's name is its hint (ADR-0310): asked about, it comes back.
    for (const part of record.parts) {
      for (const { reference, described } of mediaStandInDescriptions(part.text)) {
        if (described === '' || !reference.startsWith('artifact:')) continue;
        const artifactId = reference.slice('artifact:'.length);
        if (part.media?.some((medium) => medium.artifactId === artifactId))
          entry(artifactId).hints.add(described);
      }
    }
  }
  return [...facts.entries()]
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
    .map(([artifactId, found]) => ({
      artifactId,
      toolNames: [...found.toolNames].sort(),
      hints: [...found.hints].sort(),
    }));
}

/** Words every generated hint has, which say nothing about the content. */
const HINT_BOILERPLATE = new Set([
  'about',
  'after',
  'again',
  'artifact',
  'before',
  'call',
  'characters',
  'content',
  'contents',
  'could',
  'does',
  'each',
  'from',
  'full',
  'have',
  'here',
  'into',
  'just',
  'more',
  'need',
  'needs',
  'only',
  'other',
  'output',
  'read',
  'read_artifact',
  'should',
  'some',
  'than',
  'that',
  'their',
  'them',
  'then',
  'there',
  'these',
  'they',
  'this',
  'those',
  'very',
  'want',
  'were',
  'what',
  'when',
  'where',
  'which',
  'will',
  'with',
  'would',
  'your',
]);

/** Lowercase words of a text: letters, digits and `_ . / -` inside. */
function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9][a-z0-9_./-]*[a-z0-9]/g) ?? []).map((word) =>
    word.replace(/[./-]+$/, ''),
  );
}

/**
 * The distinctive terms of a rehydrate hint: words of four characters or more that are not
 * boilerplate, not a number and not the artifact id itself (naming the id is the message trigger).
 *
 * @param hint - The hint (and description).
 * @param artifactId - The artifact's id, left out.
 * @returns The terms, deduplicated, in order of appearance.
 */
export function hintTerms(hint: string, artifactId: string): string[] {
  const id = artifactId.toLowerCase();
  const terms: string[] = [];
  for (const word of wordsOf(hint)) {
    if (word.length < 4 || HINT_BOILERPLATE.has(word) || /^[0-9]+$/.test(word) || word.includes(id)) continue;
    if (!terms.includes(word)) terms.push(word);
  }
  return terms;
}

/**
 * Whether a text asks for what a hint describes: it names at least two of the hint's distinctive
 * terms as whole words (one, when the hint has only one, such as a tool's name).
 *
 * @param text - The agent's message.
 * @param terms - The hint's terms ({@link hintTerms}).
 * @returns True on a match.
 */
export function matchesHint(text: string, terms: readonly string[]): boolean {
  if (terms.length === 0) return false;
  const words = new Set(wordsOf(text));
  const needed = Math.min(2, terms.length);
  let found = 0;
  for (const term of terms) {
    if (words.has(term)) found += 1;
    if (found >= needed) return true;
  }
  return false;
}

/** The sentences of a text that are questions (end in "?"), joined; empty when there is none. */
export function questionsIn(text: string): string {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .filter((sentence) => sentence.trim().endsWith('?'))
    .join('\n');
}

/**
 * The two implicit triggers of ADR-0008's safety net (ADR-0191), after the explicit references:
 * a pending tool call whose tool's input schema declares it needs another tool's output
 * (`x-compactor-rehydrate`), which rehydrates the artifacts holding that output; and the agent's
 * latest message asking a question that matches an artifact's rehydrate hint. Ids already found are
 * skipped.
 */
export function findImplicitArtifactReferences(
  messages: readonly ThreadMessage[],
  exchanges: ToolExchangeIndex,
  agent: string | undefined,
  plan: CompactionPlan | null,
  tools: readonly ToolDefinition[],
  already: ReadonlySet<string>,
): ArtifactReference[] {
  const facts = artifactFacts(plan);
  if (facts.length === 0) return [];
  const found: ArtifactReference[] = [];
  const seen = new Set(already);
  const add = (artifactId: string, trigger: ArtifactReference['trigger']) => {
    if (seen.has(artifactId)) return;
    seen.add(artifactId);
    found.push({ artifactId, trigger });
  };
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  for (const exchange of exchanges.exchanges) {
    if (exchange.resultMessageIndex !== undefined) continue;
    const message = messages[exchange.callMessageIndex];
    if (!message || message.subagentId !== agent) continue;
    const call = message.content.find((part) => part.type === 'tool_call' && part.id === exchange.callId);
    if (call?.type !== 'tool_call') continue;
    const needed = new Set(neededToolOutputs(toolsByName.get(call.name)));
    if (needed.size === 0) continue;
    for (const fact of facts) {
      if (fact.toolNames.some((name) => needed.has(name))) add(fact.artifactId, 'tool_schema');
    }
  }
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.role !== 'assistant' || message.subagentId !== agent) continue;
    const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
    // The default policy: the agent *asks a question* that matches the hint; statements do not trigger it.
    const questions = questionsIn(text);
    if (questions === '') break;
    for (const fact of facts) {
      if (fact.hints.some((hint) => matchesHint(questions, hintTerms(hint, fact.artifactId)))) {
        add(fact.artifactId, 'hint');
      }
    }
    break;
  }
  return found;
}
