import type { CompactionPlan } from './plan.js';
import type {
  AbridgeRecord,
  ClearRecord,
  CompactionRecord,
  DropRecord,
  ExternalizationRecord,
  SummarizationRecord,
} from './records.js';

/** What a plan does to one message; `include` when no record owns it. */
export type CompactionAction = 'include' | 'clear' | 'abridge' | 'summarize' | 'externalize' | 'drop';

/**
 * Drop > Externalize > Summarize > Clear > Abridge > Include (ADR-0003, ADR-0265, ADR-0311): an
 * abridged message is still shown, so any record that takes the whole message, or a tool result's
 * whole content, wins it. Abridge and clear meet only on a tool message whose result media were
 * replaced (ADR-0311); a later clear replaces the rest of that result too.
 */
export const ACTION_PRECEDENCE: Readonly<Record<CompactionAction, number>> = {
  drop: 5,
  externalize: 4,
  summarize: 3,
  clear: 2,
  abridge: 1,
  include: 0,
};

const actionOfKind: Record<CompactionRecord['kind'], Exclude<CompactionAction, 'include'>> = {
  drop: 'drop',
  externalize: 'externalize',
  summarize: 'summarize',
  abridge: 'abridge',
  clear: 'clear',
};

/**
 * The action a record gives the messages it owns.
 *
 * @param record - A record.
 * @returns Its action.
 */
export function actionOfRecord(record: CompactionRecord): Exclude<CompactionAction, 'include'> {
  return actionOfKind[record.kind];
}

/**
 * Records ordered strongest action first by `ACTION_PRECEDENCE`; records of equal precedence keep
 * their order (the sort is stable), so the earlier record wins a tie.
 *
 * @param records - Records in plan order.
 * @returns A sorted copy.
 */
export function byPrecedence(records: readonly CompactionRecord[]): CompactionRecord[] {
  return [...records].sort(
    (left, right) => ACTION_PRECEDENCE[actionOfKind[right.kind]] - ACTION_PRECEDENCE[actionOfKind[left.kind]],
  );
}

/**
 * Does `challenger` win a message from `holder`? Only a strictly higher precedence does.
 *
 * @param challenger - The action claiming the message.
 * @param holder - The action holding it.
 * @returns True when the challenger's precedence is higher.
 */
export function outranks(challenger: CompactionAction, holder: CompactionAction): boolean {
  return ACTION_PRECEDENCE[challenger] > ACTION_PRECEDENCE[holder];
}

/** The action a message gets, and the record that gives it. */
export interface PlannedAction {
  action: Exclude<CompactionAction, 'include'>;
  record: CompactionRecord;
}

/** A plan in which every message belongs to at most one record. */
export interface NormalizedPlan {
  plan: CompactionPlan;
  /** message id → the one record that owns it. Ids absent from the map are included as-is. */
  actions: ReadonlyMap<string, PlannedAction>;
  /** Each record with its span reduced to the ids it owns; records left empty are removed. */
  records: CompactionRecord[];
  /** One per conflict resolved. */
  warnings: string[];
}

/** Every record of the plan, by list: drops, externalizations, summarizations, clearings, abridgements. */
export function planRecords(plan: CompactionPlan): CompactionRecord[] {
  return [
    ...plan.drops,
    ...plan.externalizations,
    ...plan.summarizations,
    ...plan.clearings,
    ...plan.abridgements,
  ];
}

/**
 * Resolve overlapping records so each message id belongs to at most one record: the higher
 * precedence wins; between equals, the earlier record wins. Every conflict is reported.
 *
 * @param plan - The plan as committed.
 * @returns The owner of each message, the reduced records and the conflicts.
 */
export function normalizePlan(plan: CompactionPlan): NormalizedPlan {
  const ordered = byPrecedence(planRecords(plan));
  const actions = new Map<string, PlannedAction>();
  const warnings: string[] = [];
  const kindName = (record: CompactionRecord) => record.kind;
  // Highest precedence first, so the first claimant of an id keeps it.
  for (const record of ordered) {
    // One owner object for all of a record's ids (ADR-0455).
    const claim: PlannedAction = { action: actionOfKind[record.kind], record };
    for (const messageId of record.span.messageIds) {
      const owner = actions.get(messageId);
      if (owner) {
        warnings.push(
          `message ${messageId} is in both a ${kindName(owner.record)} and a ${kindName(record)} record; ${kindName(owner.record)} takes precedence`,
        );
        continue;
      }
      actions.set(messageId, claim);
    }
  }
  ownerMapsSharedPerRecord.add(actions);
  const records: CompactionRecord[] = [];
  for (const record of ordered) {
    const owned = record.span.messageIds.filter((messageId) => actions.get(messageId)?.record === record);
    if (owned.length === 0) continue;
    if (owned.length === record.span.messageIds.length) records.push(record);
    else records.push({ ...record, span: { ...record.span, messageIds: owned } } as CompactionRecord);
  }
  return { plan, actions, records, warnings };
}

/**
 * The owner maps `normalizePlan` made, whose ids of one record share one owner object (ADR-0455). A
 * caller that writes to one keeps that so (`editPlan` does).
 */
const ownerMapsSharedPerRecord = new WeakSet<ReadonlyMap<string, PlannedAction>>();

/**
 * Whether every id a record owns in `actions` maps to one owner object (a map `normalizePlan` made).
 *
 * @param actions - An owner map.
 * @returns True when it is known to.
 */
export function ownersSharedPerRecord(actions: ReadonlyMap<string, PlannedAction>): boolean {
  return ownerMapsSharedPerRecord.has(actions);
}

/**
 * What the plan does to a message.
 *
 * @param normalized - The normalized plan.
 * @param messageId - The message.
 * @returns Its action, `include` when no record owns it.
 */
export function actionFor(normalized: NormalizedPlan, messageId: string): CompactionAction {
  return normalized.actions.get(messageId)?.action ?? 'include';
}

/**
 * Split normalized records back into the plan's four lists.
 *
 * @param records - Records of any kinds.
 * @returns The records by kind, order kept.
 */
export function recordsToPlanLists(records: readonly CompactionRecord[]): {
  externalizations: ExternalizationRecord[];
  summarizations: SummarizationRecord[];
  clearings: ClearRecord[];
  drops: DropRecord[];
  abridgements: AbridgeRecord[];
} {
  return {
    externalizations: records.filter(
      (record): record is ExternalizationRecord => record.kind === 'externalize',
    ),
    summarizations: records.filter((record): record is SummarizationRecord => record.kind === 'summarize'),
    clearings: records.filter((record): record is ClearRecord => record.kind === 'clear'),
    drops: records.filter((record): record is DropRecord => record.kind === 'drop'),
    abridgements: records.filter((record): record is AbridgeRecord => record.kind === 'abridge'),
  };
}
