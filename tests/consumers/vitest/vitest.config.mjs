// The suite the node:test driver (vitest.test.mjs) runs; vitest must not
// pick up the driver itself, hence the explicit include.
export default {
  test: {
    include: ['suite/*.spec.ts'],
    setupFiles: ['./setup.ts'],
    pool: 'threads',
    maxWorkers: 1,
  },
};
