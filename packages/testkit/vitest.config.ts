// Shared test settings (ADR-0200).
export { default } from '../../vitest.shared.js';
