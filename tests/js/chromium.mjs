// Launches Debian's Chromium through playwright-core with the flags this
// closed network needs (without them Chromium floods it with connections).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export async function withPage(url, fn) {
  const profile = mkdtempSync(join(tmpdir(), 'at-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const errors = [];
  const logs = [];
  try {
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e?.stack ?? e)));
    page.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
    await page.goto(url);
    return await fn(page, { errors, logs });
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
