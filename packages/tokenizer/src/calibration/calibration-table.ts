import type { EstimateCalibration } from './estimate-calibration.js';

/** How far a calibration's estimates were from the API's counts, in percent. */
export interface CalibrationErrorSummary {
  meanAbsolutePercentError: number;
  p95AbsolutePercentError: number;
  underCountShare: number;
}

/** One calibration and where it came from (the generated table fills every field). */
export interface CalibrationTableEntry {
  calibration: EstimateCalibration;
  measuredOn: {
    date: string;
    files: readonly string[];
    models: readonly string[];
    samples: number;
  };
  /** Leave-one-session-out: each session's samples estimated by a fit of the other sessions. */
  heldOutError: CalibrationErrorSummary;
  /** This entry's own estimate on every sample it was fitted to. */
  inSampleError: CalibrationErrorSummary;
}

/** Keyed by canonical model id or by tokenizer generation (`claude-3`); the model id wins. */
export type CalibrationTable = Readonly<Record<string, CalibrationTableEntry>>;
