import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Api, PlanResponse, PromptResponse, ThreadDetail, ThreadRow } from '../api.js';
import { number } from '../format.js';
import { Actions } from './Actions.js';
import { Artifacts } from './Artifacts.js';
import { ContextBar } from './ContextBar.js';
import { LifecycleFeed } from './LifecycleFeed.js';
import { PlanHistory } from './PlanHistory.js';
import { SummaryView } from './SummaryView.js';
import { Timeline } from './Timeline.js';

export interface RenderChoice {
  provider: string;
  budget?: number;
}

/** One thread: what the model sees, how it got there, and what can be done about it. */
export function ThreadView({ api, threadId }: { api: Api; threadId: string }) {
  const [thread, setThread] = useState<ThreadDetail | null>(null);
  const [plan, setPlan] = useState<PlanResponse | null>(null);
  const [prompt, setPrompt] = useState<PromptResponse | null>(null);
  const [choice, setChoice] = useState<RenderChoice>({ provider: 'anthropic' });
  const [error, setError] = useState<string | null>(null);
  const [branches, setBranches] = useState<ThreadRow[]>([]);
  const [generation, setGeneration] = useState(0);
  const refresh = useCallback(() => setGeneration((value) => value + 1), []);

  useEffect(() => {
    let live = true;
    Promise.all([
      api.getThread(threadId),
      api.getPlan(threadId),
      api.listThreads({ branchedFrom: threadId, limit: 100 }),
    ])
      .then(([loadedThread, loadedPlan, loadedBranches]) => {
        if (!live) return;
        setThread(loadedThread);
        setPlan(loadedPlan);
        setBranches(loadedBranches.threads);
        setError(null);
      })
      .catch((caught: Error) => live && setError(caught.message));
    return () => {
      live = false;
    };
  }, [api, threadId, generation]);

  useEffect(() => {
    let live = true;
    api
      .prompt(threadId, choice)
      .then((loaded) => live && setPrompt(loaded))
      .catch((caught: Error) => live && setError(caught.message));
    return () => {
      live = false;
    };
  }, [api, threadId, choice, generation]);

  if (error && !thread) {
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  }
  if (!thread || !plan) return <p aria-busy="true">Loading…</p>;
  const current = plan.current.plan;

  return (
    <article aria-labelledby="thread-title">
      <nav aria-label="Breadcrumb">
        <a href="#/">Threads</a> / {threadId}
      </nav>
      <h1 id="thread-title">{threadId}</h1>
      <p class="muted">
        {thread.model} · {number(thread.contextWindow)}-token window · {number(thread.messageCount)} messages
        · plan v<span data-testid="plan-version">{plan.current.version}</span> · auto-compaction{' '}
        {thread.policy.autoCompact ? 'on' : 'off'}
        {thread.branchedFrom && (
          <>
            {' '}
            · branched from{' '}
            <a href={`#/threads/${encodeURIComponent(thread.branchedFrom.sourceThreadId)}`}>
              {thread.branchedFrom.sourceThreadId}
            </a>{' '}
            at {thread.branchedFrom.fromMessageId}
          </>
        )}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="grid">
        <div class="main-column">
          <ContextBar
            prompt={prompt}
            contextWindow={thread.contextWindow}
            choice={choice}
            onChoice={setChoice}
          />
          <Timeline
            api={api}
            threadId={threadId}
            plan={current}
            branches={branches}
            generation={generation}
            onChanged={refresh}
          />
          <PlanHistory api={api} threadId={threadId} history={plan.history} branches={branches} />
          <SummaryView plan={current} />
          <Artifacts api={api} plan={current} />
        </div>
        <aside class="side-column">
          <Actions api={api} thread={thread} prompt={prompt} onChanged={refresh} />
          <LifecycleFeed api={api} threadId={threadId} onCompaction={refresh} />
        </aside>
      </div>
    </article>
  );
}
