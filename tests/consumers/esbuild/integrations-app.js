// Bundled where `ai` and the OpenTelemetry SDK are installed
// (tests/node_modules): the integrations app in the browser (Mastra is a
// server framework: its core imports Node built-ins, so no browser bundle
// has it). Reports to window.__result.
import * as lib from 'agent-trajectories';
import { exportSpans } from 'agent-trajectories/otel';
import { integrations } from '../../js/integrations-app.mjs';

lib.init()
  .then(() => integrations({ ...lib, exportSpans }))
  .then(
    (result) => { window.__result = result; },
    (e) => { window.__result = { error: String(e?.stack ?? e) }; },
  );
