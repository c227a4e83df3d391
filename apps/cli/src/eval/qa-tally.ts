import type { AskedRequest } from './conditioned-system.js';

/** Question-conditioned counts over one common denominator: every QA item asked. */
export interface QaTally {
  questions: number;
  /** Every evidence turn present (strict). */
  evidence: number;
  /** The answer on word boundaries (only scorable answers can match). */
  answer: number;
  /** The same answer check on an equal-size request holding none of the evidence. */
  chance: number;
  /** Questions whose answer is scorable (4+ characters, not yes/no): the most `answer` can reach. */
  scorable: number;
}

export const emptyTally = (): QaTally => ({ questions: 0, evidence: 0, answer: 0, chance: 0, scorable: 0 });

export function addTally(into: QaTally, from: QaTally): QaTally {
  into.questions += from.questions;
  into.evidence += from.evidence;
  into.answer += from.answer;
  into.chance += from.chance;
  into.scorable += from.scorable;
  return into;
}

/** What the requests of one run used and what the renderer had to do (item 4 of issue #12). */
export interface UsageFigures {
  requests: number;
  ceiling: number;
  /** Independent counts (`countRequest`). */
  meanTokens: number;
  maxTokens: number;
  /** meanTokens / ceiling. */
  fill: number;
  overCeiling: number;
  /** Requests checked by the provider validator (a sample: the first, then every tenth) and how many failed. */
  validated: number;
  invalid: number;
  /** Requests that could not be rendered at all. */
  failed: number;
  emergencyFits: number;
  droppedMessages: number;
  droppedSummaries: number;
  droppedSummaryTokens: number;
  /** Mean summary tokens in the request, the summary's budget (max seen) and requests over it. */
  meanSummaryTokens: number;
  summaryBudget: number | null;
  summaryOverBudget: number;
  meanRecallTokens: number;
}

export class UsageCounter {
  private tokens = 0;
  private summary = 0;
  private recall = 0;
  readonly figures: UsageFigures;

  constructor(ceiling: number) {
    this.figures = {
      requests: 0,
      ceiling,
      meanTokens: 0,
      maxTokens: 0,
      fill: 0,
      overCeiling: 0,
      validated: 0,
      invalid: 0,
      failed: 0,
      emergencyFits: 0,
      droppedMessages: 0,
      droppedSummaries: 0,
      droppedSummaryTokens: 0,
      meanSummaryTokens: 0,
      summaryBudget: null,
      summaryOverBudget: 0,
      meanRecallTokens: 0,
    };
  }

  add(asked: AskedRequest, requestTokens: number, validation: boolean | undefined): void {
    const figures = this.figures;
    figures.requests += 1;
    if (asked.request === null) figures.failed += 1;
    this.tokens += requestTokens;
    figures.maxTokens = Math.max(figures.maxTokens, requestTokens);
    if (requestTokens > figures.ceiling) figures.overCeiling += 1;
    if (validation !== undefined) {
      figures.validated += 1;
      if (!validation) figures.invalid += 1;
    }
    if (asked.emergency) {
      figures.emergencyFits += 1;
      figures.droppedMessages += asked.emergency.droppedMessages;
      figures.droppedSummaries += asked.emergency.droppedSummaries;
      figures.droppedSummaryTokens += asked.emergency.droppedSummaryTokens;
    }
    this.summary += asked.summaryTokens;
    if (asked.summaryBudget !== null) {
      figures.summaryBudget = Math.max(figures.summaryBudget ?? 0, asked.summaryBudget);
      if (asked.summaryTokens > asked.summaryBudget) figures.summaryOverBudget += 1;
    }
    this.recall += asked.recallTokens;
    figures.meanTokens = Math.round(this.tokens / figures.requests);
    figures.fill = figures.ceiling > 0 ? figures.meanTokens / figures.ceiling : 0;
    figures.meanSummaryTokens = Math.round(this.summary / figures.requests);
    figures.meanRecallTokens = Math.round(this.recall / figures.requests);
  }
}

/** Sum usage over runs (means weighted by requests). */
export function mergeUsage(runs: readonly UsageFigures[]): UsageFigures {
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const weighted = (pick: (run: UsageFigures) => number) =>
    requests === 0 ? 0 : Math.round(runs.reduce((sum, run) => sum + pick(run) * run.requests, 0) / requests);
  const sum = (pick: (run: UsageFigures) => number) => runs.reduce((total, run) => total + pick(run), 0);
  const budgets = runs.flatMap((run) => (run.summaryBudget === null ? [] : [run.summaryBudget]));
  return {
    requests,
    ceiling: weighted((run) => run.ceiling),
    meanTokens: weighted((run) => run.meanTokens),
    maxTokens: Math.max(0, ...runs.map((run) => run.maxTokens)),
    fill: requests === 0 ? 0 : runs.reduce((total, run) => total + run.fill * run.requests, 0) / requests,
    overCeiling: sum((run) => run.overCeiling),
    validated: sum((run) => run.validated),
    invalid: sum((run) => run.invalid),
    failed: sum((run) => run.failed),
    emergencyFits: sum((run) => run.emergencyFits),
    droppedMessages: sum((run) => run.droppedMessages),
    droppedSummaries: sum((run) => run.droppedSummaries),
    droppedSummaryTokens: sum((run) => run.droppedSummaryTokens),
    meanSummaryTokens: weighted((run) => run.meanSummaryTokens),
    summaryBudget: budgets.length === 0 ? null : Math.max(...budgets),
    summaryOverBudget: sum((run) => run.summaryOverBudget),
    meanRecallTokens: weighted((run) => run.meanRecallTokens),
  };
}
