import { readFileSync } from 'node:fs';

/** Punctual's version, read once from package.json (sent as `User-Agent: Punctual/<version>`). */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
