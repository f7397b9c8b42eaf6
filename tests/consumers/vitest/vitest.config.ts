import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Extends expect with the matchers before every test file.
    setupFiles: ['./setup.ts'],
    include: ['suite/*.spec.ts'],
  },
});
