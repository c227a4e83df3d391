import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Builds the page into ../dist, served by the ingest under /ui/ (ADR-0090). */
export default defineConfig({
  root: here('.'),
  base: '/ui/',
  // Preact with its React compatibility layer, so React libraries (the virtualizer) run on it.
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  resolve: {
    alias: {
      react: 'preact/compat',
      'react-dom': 'preact/compat',
      'react/jsx-runtime': 'preact/jsx-runtime',
    },
  },
  build: {
    outDir: here('../dist'),
    emptyOutDir: true,
    chunkSizeWarningLimit: 600,
    reportCompressedSize: false,
    rollupOptions: {
      // zod's sources carry comments rollup cannot place; harmless, and not ours to change.
      onwarn(warning, warn) {
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('node_modules')) return;
        warn(warning);
      },
    },
  },
  logLevel: 'warn',
});
