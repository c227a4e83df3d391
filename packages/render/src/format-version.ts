/**
 * Bump when anything the renderer writes into a request changes (synthetic texts, role
 * adaptations, block shapes). It is part of every render-cache key and of golden prompts.
 */
export const RENDER_FORMAT_VERSION = 'v1';
