export {
  createExtractiveSummarizer,
  EXTRACTIVE_SUMMARIZER_VERSION,
  type ExtractiveSummarizerOptions,
} from './extractive/extractive-summarizer.js';
export { isConstraintSentence } from './extractive/user-intent.js';
export { clip, headTailTruncate, sentencesOf, textOf } from './text.js';
