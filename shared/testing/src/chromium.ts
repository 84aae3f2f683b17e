import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium, which CI installs (.ci/run); playwright-core drives it (no browser download). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Whether a browser test can run here. On CI a missing chromium is an error; on a developer
 * machine the test is skipped, saying why.
 */
export function chromiumAvailable(testName: string): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI) throw new Error(`${CHROMIUM_PATH} is missing: CI must install Debian's chromium for ${testName}`);
  console.warn(`${testName} skipped: ${CHROMIUM_PATH} not found (apt-get install -y chromium)`);
  return false;
}

/** Headless, sandbox-less (containers), and quiet: no GPU, no background or update traffic. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
