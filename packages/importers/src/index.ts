export { detectFormat } from './detect-format.js';
export { defaultModels } from './formats/adapters.js';
export {
  defaultContextWindow,
  importTranscript,
  listConversations,
  type OpenedTranscript,
  openTranscript,
} from './import-transcript.js';
export { importTranscriptFile } from './import-transcript-file.js';
export { interruptedResultText } from './shared/finalize-messages.js';
export { defaultToolDurability } from './shared/tool-durability.js';
export * from './types.js';
