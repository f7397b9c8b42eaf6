// A small OpenAI-compatible chat completions endpoint on 127.0.0.1 for the
// tests: a scripted model that answers from the request alone, so runs
// through it are deterministic.
// - model "user": plays the user; the reply follows the step instruction in
//   the system prompt ("What to do in this message: ...").
// - model "agent": with tools offered and a user asking to book, calls the
//   first tool; after a tool result, confirms it; otherwise answers in text.
// - any model with response_format json_object: ranks the "- id: ..." lines
//   of the prompt, the first one highest.
import { createServer } from 'node:http';

function complete(body, n) {
  const messages = body.messages ?? [];
  const last = messages[messages.length - 1] ?? {};
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  if (body.response_format?.type === 'json_object') {
    const ids = [...String(last.content).matchAll(/^- ([\w-]+): /gm)].map((m) => m[1]);
    const candidates = ids.map((stepId, i) => ({ stepId, score: i === 0 ? 0.9 : 0.2, reasons: [i === 0 ? 'next in line' : 'later'] }));
    return { content: JSON.stringify({ candidates }) };
  }
  if (body.model === 'user') {
    const step = /What to do in this message: (.*)/.exec(system)?.[1];
    return { content: step ? `Please, ${step}.` : 'Thanks, that is all.' };
  }
  if (body.model === 'agent') {
    if (last.role === 'tool') return { content: `Done: ${last.content}` };
    const tool = body.tools?.[0]?.function?.name;
    if (tool && /book/i.test(String(last.content))) {
      return { content: null, tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: tool, arguments: JSON.stringify({ people: 2 }) } }] };
    }
    return { content: `Happy to help with: ${last.content}` };
  }
  return null;
}

/** Starts the server; resolves to { url (the API root, ending in /v1), requests, close() }. */
export async function startChatServer() {
  const requests = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const send = (status, json) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return send(404, { error: { message: `no route ${req.method} ${req.url}` } });
      let body;
      try {
        body = JSON.parse(raw);
      } catch {
        return send(400, { error: { message: 'body is not JSON' } });
      }
      requests.push({ body, authorization: req.headers.authorization });
      const message = complete(body, requests.length);
      if (!message) return send(400, { error: { message: `unknown model ${body.model}` } });
      send(200, {
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: raw.length >> 2, completion_tokens: 8, total_tokens: (raw.length >> 2) + 8 },
      });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
