/** How big each workload is: the full run, or `--quick`'s smoke run. */
export interface BenchSizes {
  ingest: { clients: number; singleEvents: number; batchedEvents: number; timeLimitMs: number };
  render: { messages: number; targetTokens: number; warmRuns: number; baselineRuns: number };
  planning: { messages: number; runs: number; naiveRuns: number };
  tokenizer: {
    bytesPerSource: number;
    repeats: number;
    worstCase: { letterBytes: number; base64Bytes: number; cjkBytes: number; minifiedBytes: number };
  };
}

export const fullSizes: BenchSizes = {
  ingest: { clients: 4, singleEvents: 2_000, batchedEvents: 20_000, timeLimitMs: 20_000 },
  render: { messages: 2_000, targetTokens: 150_000, warmRuns: 1_000, baselineRuns: 15 },
  planning: { messages: 2_000, runs: 21, naiveRuns: 3 },
  tokenizer: {
    bytesPerSource: 700_000,
    repeats: 3,
    worstCase: {
      letterBytes: 1_000_000,
      base64Bytes: 1_000_000,
      cjkBytes: 5_000_000,
      minifiedBytes: 1_000_000,
    },
  },
};

export const quickSizes: BenchSizes = {
  ingest: { clients: 2, singleEvents: 100, batchedEvents: 1_000, timeLimitMs: 5_000 },
  render: { messages: 300, targetTokens: 25_000, warmRuns: 30, baselineRuns: 3 },
  planning: { messages: 300, runs: 3, naiveRuns: 1 },
  tokenizer: {
    bytesPerSource: 30_000,
    repeats: 1,
    worstCase: { letterBytes: 50_000, base64Bytes: 50_000, cjkBytes: 150_000, minifiedBytes: 50_000 },
  },
};
