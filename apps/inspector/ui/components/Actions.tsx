import { useEffect, useState } from 'preact/hooks';
import type { Api, PromptResponse, ThreadDetail } from '../api.js';

/** Compact now (with instructions), branch at a message, toggle auto-compaction, copy the request. */
export function Actions(props: {
  api: Api;
  thread: ThreadDetail;
  prompt: PromptResponse | null;
  onChanged: () => void;
}) {
  const { api, thread, prompt, onChanged } = props;
  const [instructions, setInstructions] = useState('');
  const [branchFrom, setBranchFrom] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Shown at once when clicked; put back if the server refuses.
  const [autoCompact, setAutoCompact] = useState(thread.policy.autoCompact);
  useEffect(() => setAutoCompact(thread.policy.autoCompact), [thread.policy.autoCompact]);

  const run = async (what: () => Promise<string>) => {
    setBusy(true);
    try {
      setNotice(await what());
    } catch (caught) {
      setNotice(`Failed: ${(caught as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  const compact = () =>
    run(async () => {
      const result = await api.compact(thread.threadId, instructions);
      onChanged();
      return result.status === 'committed'
        ? `Committed plan v${result.planVersion}`
        : `Compaction: ${result.status}`;
    });

  const toggle = () =>
    run(async () => {
      const next = !autoCompact;
      setAutoCompact(next);
      try {
        await api.setPolicy(thread.threadId, { autoCompact: next });
      } catch (error) {
        setAutoCompact(!next);
        throw error;
      }
      onChanged();
      return `Auto-compaction ${next ? 'on' : 'off'}`;
    });

  const branch = () =>
    run(async () => {
      const created = await api.branch(thread.threadId, branchFrom.trim());
      window.location.hash = `#/threads/${encodeURIComponent(created.threadId)}`;
      return `Branched into ${created.threadId}`;
    });

  const copy = () =>
    run(async () => {
      await navigator.clipboard.writeText(JSON.stringify(prompt?.request, null, 2));
      return 'Request JSON copied';
    });

  return (
    <section class="card" aria-labelledby="actions-title">
      <h2 id="actions-title">Actions</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void compact();
        }}
      >
        <label for="instructions">Instructions for this compaction (optional)</label>
        <textarea
          id="instructions"
          rows={3}
          value={instructions}
          onInput={(event) => setInstructions((event.target as HTMLTextAreaElement).value)}
        />
        <button type="submit" disabled={busy}>
          Compact now
        </button>
      </form>
      <div class="row">
        <input
          type="checkbox"
          id="auto-compact"
          checked={autoCompact}
          disabled={busy}
          onChange={() => void toggle()}
        />
        <label for="auto-compact">Auto-compaction</label>
      </div>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void branch();
        }}
      >
        <label for="branch-from">Branch at message id</label>
        <input
          id="branch-from"
          value={branchFrom}
          onInput={(event) => setBranchFrom((event.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy || branchFrom.trim() === ''}>
          Branch
        </button>
      </form>
      <button type="button" onClick={() => void copy()} disabled={!prompt}>
        Copy request as JSON
      </button>
      {prompt && (
        <details>
          <summary>Request JSON</summary>
          <pre data-testid="request-json">{JSON.stringify(prompt.request, null, 2)}</pre>
        </details>
      )}
      {notice && (
        <p role="status" data-testid="notice">
          {notice}
        </p>
      )}
    </section>
  );
}
