// Bundles an app's src/main.ts and the workspace libraries it imports (@steward/*, TypeScript
// sources) into one ES module, dist/apps/<app>/main.js. Third-party packages stay imports: the
// container image installs them from the lockfile (`npm ci --omit=dev -w @steward/<app>`), so they
// run exactly as published (some read their own files at run time) — except the few in `Inlined`,
// compiled in and tree-shaken because their index loads far more than the apps use (their own
// dependencies stay imports, under the same rule as the apps').
//
// The source map keeps names and positions but not the sources' text (`sourcesContent: false`):
// `--enable-source-maps` (the image's) needs only the mappings for stack traces, and the text
// would sit in the heap of every controller.
//
// tools/scripts/app-dependencies.ts checks that those package.json files hold exactly what the
// bundle's sources import.
//
//   npx tsx tools/scripts/bundle-app.ts database-instance-controller
import { build, type Plugin } from 'esbuild';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { controllers } from './controllers.js';

const root = join(import.meta.dirname, '..', '..');

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`. */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The `node_modules/<package>` directory Node would find first, walking up from `fromDir`. */
function installedAt(pkg: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', pkg);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Third-party packages compiled into the bundle. @kubernetes/client-node: the apps use its
 * `KubeConfig` and little else, but its index (and even `dist/config.js`) loads its ≈ 1,000
 * generated API modules — 24.8 MB of JavaScript, ≈ 20 MiB of an idle controller's heap and 27–51
 * MiB of its RSS (BENCHMARKS.md, "Controller memory"). Tree-shaken, the bundle keeps what is used.
 */
export const Inlined: ReadonlySet<string> = new Set(['@kubernetes/client-node']);

/**
 * Bare imports other than `@steward/*` are left to Node's resolution at run time when they resolve
 * to the workspace root's node_modules (what the image installs). A library's own, nested version
 * (e.g. libs/crd/node_modules/js-yaml, when the root holds another version for a dev tool) is
 * bundled instead: from the bundle's directory Node would find the wrong one, or none.
 */
function thirdPartyExternal(inlined: ReadonlySet<string>): Plugin {
  return {
    name: 'third-party-external',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('@steward/') || args.path.startsWith('node:')) {
          return args.path.startsWith('node:') ? { path: args.path, external: true } : undefined;
        }
        const pkg = packageName(args.path);
        if (inlined.has(pkg)) return undefined;
        const found = installedAt(pkg, args.resolveDir);
        if (found && found !== join(root, 'node_modules', pkg)) return undefined;
        return { path: args.path, external: true };
      });
    },
  };
}

/** How a bundle is built; the defaults are the image's. */
export interface BundleOptions {
  /** Third-party packages compiled in (default `Inlined`); the others stay imports. */
  inlined?: ReadonlySet<string>;
  /** Keep the sources' text in the source map (default false). */
  sourcesContent?: boolean;
}

/** Writes dist/apps/<app>/main.js (and its source map); returns the file's path. */
export async function bundleApp(
  app: string,
  outdir = join(root, 'dist', 'apps', app),
  options: BundleOptions = {},
): Promise<string> {
  const apps = controllers(root).map((c) => c.app);
  if (!apps.includes(app)) throw new Error(`no app ${app} under apps/ (apps: ${apps.join(', ')})`);
  const outfile = join(outdir, 'main.js');
  await build({
    entryPoints: [join(root, 'apps', app, 'src', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    sourcesContent: options.sourcesContent ?? false,
    tsconfig: join(root, 'tsconfig.base.json'),
    plugins: [thirdPartyExternal(options.inlined ?? Inlined)],
    logLevel: 'warning',
    legalComments: 'none',
    // An inlined package's CommonJS dependencies are `require`d from its ES modules.
    banner: {
      js: "import { createRequire as __stewardRequire } from 'node:module'; const require = __stewardRequire(import.meta.url);",
    },
  });
  return outfile;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const app = process.argv[2];
  const apps = controllers(root).map((c) => c.app);
  if (!app || !apps.includes(app)) {
    process.stderr.write(`usage: bundle-app.ts <app>   (apps: ${apps.join(', ')})\n`);
    process.exit(2);
  }
  process.stdout.write(`${await bundleApp(app)}\n`);
}
