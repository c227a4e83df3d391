/**
 * Bump when anything the renderer writes into a request changes (synthetic texts, role
 * adaptations, block shapes, and core's stand-in texts: bump it with `STAND_IN_TEXT_VERSION`). It is
 * part of every render-cache key and of golden prompts.
 */
export const RENDER_FORMAT_VERSION = 'v1';
