import type { NormalizedPlan } from '../plan/normalize.js';
import type { CompactionPolicy } from '../schemas/policy.js';
import { isTurnStart, type Thread, type ThreadMessage } from '../thread/thread.js';
import { hasNamedSpeakers, threadKindOf } from '../thread/thread-kind.js';
import { userInstructionSentences } from '../thread/user-instructions.js';
import { abridgedTokens, draftAbridgement } from './abridge-parts.js';
import type { PlanningIndex } from './planning-index.js';

/**
 * The user's own messages no rung may compact (ADR-0110): every message a person wrote (a real turn
 * start: not synthetic, not a subagent's), newest first, while they fit `keepUserTokens`; and, past
 * that share, the messages that carry a standing instruction, preference or binding
 * (`userInstructionSentences`), oldest first (they were given first and hold for good) while they fit
 * `keepUserInstructionTokens`. A message already compacted by an earlier plan stays as that plan left
 * it (the log keeps it; recall can bring it back). A message too large for what is left of the share
 * is measured again as the abridge rung would leave it (ADR-0266: pasted blocks clipped to head and
 * tail, media by caption) and kept when that fits: the person's words stay, the paste is clipped.
 *
 * @param planningIndex - The planning run's index of `thread` (ADR-0280), when the caller has one.
 * @returns ids of the messages to keep verbatim, in the rendered request, through every round
 */
export function keptUserMessageIds(
  thread: Thread,
  policy: CompactionPolicy,
  countMessage: (message: ThreadMessage) => number,
  normalized: NormalizedPlan,
  planningIndex?: PlanningIndex,
): Set<string> {
  const kept = new Set<string>();
  if (!policy.keepUserMessages) return kept;
  // Only what still renders verbatim can be kept verbatim: an earlier round's choice stands. An
  // abridged message still shows the person's words (ADR-0266).
  // A turn start the plan summarizes or drops is passed over by the index's flags (ADR-0386): most of a
  // long compacted thread's turn starts are, and each would otherwise be looked up by id at every step.
  const hidden = planningIndex?.hiddenAt(normalized.plan);
  const candidates = (planningIndex?.turnStarts ?? thread.messages.filter(isTurnStart)).filter((message) => {
    if (hidden?.[message.index] === 1) return false;
    const action = normalized.actions.get(message.id)?.action;
    return action === undefined || action === 'abridge';
  });
  const instructions: ThreadMessage[] = [];
  // In a dialogue between named people the summary carries both speakers' informative turns, dated
  // (ADR-0160): the "user" is one of them, and their words are kept verbatim only where they instruct,
  // unless the policy asks for all of them. A chat with an assistant keeps the user's words (ADR-0110).
  const dialogue =
    policy.keepUserWordsInDialogue !== 'all' &&
    (planningIndex?.kind ?? threadKindOf(thread.messages)) === 'dialogue' &&
    (planningIndex?.namedSpeakers ?? hasNamedSpeakers(thread.messages));
  let share = dialogue ? 0 : policy.keepUserTokens;
  for (let index = candidates.length - 1; index >= 0; index -= 1) {
    const message = candidates[index]!;
    const tokens = dialogue ? 0 : keptSize(message, share, policy, countMessage);
    if (!dialogue && tokens <= share) {
      kept.add(message.id);
      share -= tokens;
    } else if (planningIndex ? planningIndex.carriesInstruction(message) : carriesInstruction(message)) {
      instructions.push(message);
    }
  }
  let pinnedShare = policy.keepUserInstructionTokens;
  for (let index = instructions.length - 1; index >= 0; index -= 1) {
    const message = instructions[index]!;
    const tokens = keptSize(message, pinnedShare, policy, countMessage);
    if (tokens > pinnedShare) continue;
    kept.add(message.id);
    pinnedShare -= tokens;
  }
  return kept;
}

/**
 * Tokens a kept message takes: whole when it fits `room`, else as the abridge rung would leave it
 * (when abridging is on and would change it).
 */
function keptSize(
  message: ThreadMessage,
  room: number,
  policy: CompactionPolicy,
  countMessage: (message: ThreadMessage) => number,
): number {
  const whole = countMessage(message);
  if (whole <= room || !policy.strategies.abridge || policy.mode.kind !== 'ladder') return whole;
  const draft = draftAbridgement(message, policy.abridgePasteEdgeLines);
  return draft ? Math.min(whole, abridgedTokens(message, draft, countMessage)) : whole;
}

/** Whether a message's text carries a standing instruction, preference or binding. */
export function carriesInstruction(message: ThreadMessage): boolean {
  for (const part of message.content) {
    if (part.type === 'text' && userInstructionSentences(part.text).length > 0) return true;
  }
  return false;
}
