// Bundles an app's src/main.ts and the workspace libraries it imports (@steward/*, TypeScript
// sources) into one ES module, dist/apps/<app>/main.js. Third-party packages stay imports: the
// container image installs them from the lockfile (`npm ci --omit=dev -w @steward/<app>`), so they
// run exactly as published (some read their own files at run time).
//
//   npx tsx tools/scripts/bundle-app.ts database-instance-controller
import { build, type Plugin } from 'esbuild';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..', '..');

/** Bare imports other than `@steward/*` are left to Node's resolution at run time. */
const thirdPartyExternal: Plugin = {
  name: 'third-party-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@steward/') ? undefined : { path: args.path, external: true },
    );
  },
};

/** Writes dist/apps/<app>/main.js (and its source map); returns the file's path. */
export async function bundleApp(
  app: string,
  outdir = join(root, 'dist', 'apps', app),
): Promise<string> {
  const outfile = join(outdir, 'main.js');
  await build({
    entryPoints: [join(root, 'apps', app, 'src', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    tsconfig: join(root, 'tsconfig.base.json'),
    plugins: [thirdPartyExternal],
    logLevel: 'warning',
    legalComments: 'none',
  });
  return outfile;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const app = process.argv[2];
  if (!app) {
    process.stderr.write('usage: bundle-app.ts <app>\n');
    process.exit(2);
  }
  process.stdout.write(`${await bundleApp(app)}\n`);
}
