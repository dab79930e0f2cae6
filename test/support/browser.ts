import puppeteer, { type Browser } from 'puppeteer-core';
import { CHROMIUM_ARGS, chromiumPath } from './machine.mjs';

/** Debian's Chromium, headless, with the flags this machine needs. */
export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromiumPath(),
    args: CHROMIUM_ARGS,
  });
}
