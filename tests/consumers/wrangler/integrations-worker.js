// Bundled where `ai`, @mastra/core and the OpenTelemetry SDK are installed
// (tests/node_modules): the integrations app inside workerd. Mastra's core
// imports Node built-ins, so this Worker sets nodejs_compat, as Mastra's
// Cloudflare deployments do.
import * as lib from 'agent-trajectories';
import { exportSpans } from 'agent-trajectories/otel';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { integrations } from '../../js/integrations-app.mjs';

export default {
  async fetch() {
    try {
      return Response.json(await integrations({ ...lib, exportSpans, Agent, createTool }));
    } catch (e) {
      return new Response(String(e?.stack ?? e), { status: 500 });
    }
  },
};
