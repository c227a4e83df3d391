import { planRecords } from '../plan/normalize.js';
import type { CompactionPlan } from '../plan/plan.js';
import type { AbridgeRecord } from '../plan/records.js';
import { holdsOpaquePart } from '../schemas/content.js';
import type { CompactionPolicy } from '../schemas/policy.js';
import type { ThreadMessage } from '../thread/thread.js';
import { threadKindOf } from '../thread/thread-kind.js';
import { abridgeRecordOf, draftAbridgement } from './abridge-parts.js';

/*
 * Media past their turn (ADR-0440). On a dialogue every call opens a new turn, and a picture weighs a
 * provider's image estimate (1,445–1,600 tokens) against a few dozen words a message: the pictures, not
 * the words, bring the messages up to the high-water mark, and each such commit rewrites the whole kept
 * tail. A picture whose turn is over is abridged (ADR-0265's stand-in) at the next check instead, while
 * it is still near the end of the prompt: that commit rewrites only the few messages after it.
 */

/**
 * Whether a thread's checks abridge media once their turn is over (`abridgeMediaPastTurn`): `auto` on a
 * dialogue only (a coding agent's screenshot is read over the turn's many calls and after).
 *
 * @param policy - The thread's policy.
 * @param messages - The thread's messages (for `auto`).
 * @returns True when the check looks for media past their turn.
 */
export function abridgesMediaPastTurn(
  policy: Pick<CompactionPolicy, 'abridgeMediaPastTurn' | 'abridgeTailMedia' | 'strategies'>,
  messages: readonly ThreadMessage[],
): boolean {
  // The abridge rung does the work; without it (or without tail media, ADR-0267) it would refuse.
  if (!policy.strategies.abridge || !policy.abridgeTailMedia) return false;
  if (policy.abridgeMediaPastTurn === 'never') return false;
  return policy.abridgeMediaPastTurn === 'always' || threadKindOf(messages) === 'dialogue';
}

/**
 * The abridgements of media whose turn is over that the plan does not hold yet: user and assistant
 * messages before the newest turn, not pinned, without opaque parts, whose images or documents no plan
 * record owns. Only the messages since the plan's newest turn are read (older media were past their
 * turn when the plan was made, and the check that made it abridged them or left them to the ladder).
 *
 * @param messages - The thread's messages, oldest first.
 * @param plan - The current plan (null before the first commit).
 * @param edgeLines - `abridgePasteEdgeLines` (drafts are shared with the abridge rung).
 * @returns The records, oldest first (media only: pastes stay the ladder's).
 */
export function mediaPastTurn(
  messages: readonly ThreadMessage[],
  plan: CompactionPlan | null,
  edgeLines: number,
): AbridgeRecord[] {
  const lastTurn = messages.at(-1)?.turn ?? 0;
  const basedOnSeq = plan?.basedOnSeq ?? -1;
  // Only messages the plan was made on can be owned by a record: read its records once, if at all.
  let owned: ReadonlySet<string> | undefined;
  const ownedByPlan = (message: ThreadMessage) => {
    if (plan === null || message.seq > basedOnSeq) return false;
    owned ??= new Set(planRecords(plan).flatMap((record) => record.span.messageIds));
    return owned.has(message.id);
  };
  // The turn that was newest when the plan was made: its media were not past their turn then.
  let planTurn: number | undefined;
  const records: AbridgeRecord[] = [];
  for (let position = messages.length - 1; position >= 0; position -= 1) {
    const message = messages[position]!;
    if (message.seq <= basedOnSeq) {
      planTurn ??= message.turn;
      if (message.turn < planTurn) break;
    }
    if (message.turn >= lastTurn) continue;
    if (message.role !== 'user' && message.role !== 'assistant') continue;
    if (message.pinned === true || holdsOpaquePart(message)) continue;
    const draft = draftAbridgement(message, edgeLines);
    if (!draft || draft.media.length === 0 || ownedByPlan(message)) continue;
    records.push(abridgeRecordOf(message, { media: draft.media, pastes: [] }));
  }
  return records.reverse();
}
