/**
 * `punctual/client` is a subpath export of the package (docs/client.md): package.json points it at
 * what `tsc -p tsconfig.build.json` emits for src/client/index.ts, `punctual` stays the bin, and
 * the client imports nothing of the service (it must run wherever fetch does).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as {
  bin: Record<string, string>;
  exports: Record<string, { types: string; import: string } | string>;
  files: string[];
};
const build = JSON.parse(readFileSync(`${ROOT}/tsconfig.build.json`, 'utf8')) as {
  compilerOptions: { rootDir: string; outDir: string; declaration: boolean };
  include: string[];
};

/** The source file tsconfig.build.json compiles into `distPath` (`./dist/x/y.js` → `src/x/y.ts`). */
function sourceOf(distPath: string): string {
  const { rootDir, outDir } = build.compilerOptions;
  expect(distPath.startsWith(`./${outDir}/`)).toBe(true);
  return `${ROOT}/${rootDir}/${distPath.slice(`./${outDir}/`.length).replace(/\.d\.ts$|\.js$/, '.ts')}`;
}

describe('package.json', () => {
  it('exports ./client with types and import that the build emits, and keeps . and the bin', () => {
    expect(build.compilerOptions.declaration).toBe(true);
    expect(build.include).toContain('src');
    const client = pkg.exports['./client'] as { types: string; import: string };
    expect(client).toEqual({ types: './dist/client/index.d.ts', import: './dist/client/index.js' });
    expect(existsSync(sourceOf(client.import))).toBe(true);
    expect(existsSync(sourceOf(client.types))).toBe(true);
    const main = pkg.exports['.'] as { types: string; import: string };
    expect(existsSync(sourceOf(main.import))).toBe(true);
    expect(pkg.bin).toEqual({ punctual: 'dist/cli.js' });
    expect(existsSync(sourceOf(`./${pkg.bin.punctual}`))).toBe(true);
    expect(pkg.files).toContain('dist');
  });

  it('the client imports only openapi-fetch and its own modules', async () => {
    const files = readdirSync(`${ROOT}/src/client`).filter((f) => f.endsWith('.ts'));
    expect(files).toEqual(expect.arrayContaining(['index.ts', 'errors.ts', 'schema.ts']));
    const own = files.map((f) => `./${f.replace(/\.ts$/, '.js')}`);
    for (const file of files.filter((f) => f !== 'schema.ts')) {
      const text = await readFile(`${ROOT}/src/client/${file}`, 'utf8');
      const imports = [...text.matchAll(/^(?:import|export)[^'"]*from '([^']+)'/gm)].map((m) => m[1]);
      expect(imports.length, file).toBeGreaterThan(0);
      for (const spec of imports) expect(['openapi-fetch', ...own], `${file} imports ${spec}`).toContain(spec);
    }
  });
});
