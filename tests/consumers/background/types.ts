import { BackgroundAgentRunner, type BackgroundTool, type Model } from 'agent-trajectories';
import { tool } from 'ai';
import { z } from 'zod';

const lint = tool({ description: 'Lint a file', inputSchema: z.object({ path: z.string() }), execute: async ({ path }) => ({ path, warnings: 0 }) });
const asTool: BackgroundTool = lint;
const model: Model = async (req, { abortSignal }) => (abortSignal?.aborted ? 'status: abandoned' : req.purpose === 'decide' ? 'status: completed' : 'ok');
const Review = z.object({ verdict: z.enum(['approve', 'reject']), findings: z.array(z.string()) });
const runner = new BackgroundAgentRunner({ model, tools: { lint } });
const r = await runner.run({ objective: 'review', deliverableSchema: Review });
const verdict: 'approve' | 'reject' | undefined = r.deliverable?.verdict;
export { asTool, verdict };
