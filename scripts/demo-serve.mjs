// Serves the demo site and prints its URL; falls back to a free port when
// the requested one is taken.
import { serveStatic } from './serve.mjs';

const [root, port] = process.argv.slice(2);
let server;
try {
  server = await serveStatic(root, Number(port));
} catch (err) {
  if (err.code !== 'EADDRINUSE') throw err;
  server = await serveStatic(root, 0);
}
console.log(`agent-trajectories demo: ${server.url}`);
