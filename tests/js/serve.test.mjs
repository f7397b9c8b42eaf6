// scripts/serve.mjs, the static server of the demo and the browser tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveStatic } from '../../scripts/serve.mjs';

// Raw paths, sent as written (fetch would normalise or refuse some of them).
const get = (url, path) => new Promise((ok, fail) => {
  const req = request(new URL(url), { path, method: 'GET' }, (res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (c) => { body += c; });
    res.on('end', () => ok({ status: res.statusCode, type: res.headers['content-type'], body }));
  });
  req.on('error', fail);
  req.end();
});

test('serveStatic: files, MIME types, 404, no escape from the root, 400 on a malformed URL', async () => {
  const root = mkdtempSync(join(tmpdir(), 'at-serve-'));
  writeFileSync(join(root, 'index.html'), '<p>hi</p>');
  writeFileSync(join(root, 'm.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d]));
  const server = await serveStatic(root);
  try {
    assert.deepEqual(await get(server.url, '/'), { status: 200, type: 'text/html; charset=utf-8', body: '<p>hi</p>' });
    assert.equal((await get(server.url, '/m.wasm')).type, 'application/wasm');
    assert.equal((await get(server.url, '/missing.js')).status, 404);
    assert.equal((await get(server.url, '/..%2f..%2fetc%2fpasswd')).status, 403);
    const bad = await get(server.url, '/%E0%A4%A');
    assert.equal(bad.status, 400);
    assert.match(bad.body, /malformed/);
    assert.equal((await get(server.url, '/')).status, 200, 'and the server is still up');
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
});
