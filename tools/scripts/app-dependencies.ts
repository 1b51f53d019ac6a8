// Checks that an app's image installs exactly the third-party packages its code imports.
//
// The image installs from package.json files, not from the code: `npm ci --omit=dev --workspace
// @steward/<app>` (apps/Dockerfile) installs the app's `dependencies` and, for each `@steward/*`
// library listed there, that library's `dependencies`; the bundle (bundle-app.ts) compiles the
// libraries in and leaves every third-party import to Node at run time. So, for each app:
//
// - its package.json lists every `@steward/*` library its code reaches, directly or through other
//   libraries (theirs list none: the app's list is the whole closure), and no other;
// - each package of that closure (the app and those libraries) declares in `dependencies` every
//   third-party package its non-test sources import at run time (type-only imports are erased by
//   the compiler), and nothing its sources do not import (for types only is fine: a library's
//   declarations can expose them); and nothing the closure declares goes unimported at run time,
//   so the image lacks nothing and carries nothing unused;
// - each declared version is the one package-lock.json resolves for that package, and the one the
//   root package.json pins, if it pins the package too.
//
//   npx tsx tools/scripts/app-dependencies.ts [app...]   # default: every app; exit 1 on a problem
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { packageName } from './bundle-app.js';
import { controllers } from './controllers.js';

const repoRoot = join(import.meta.dirname, '..', '..');

/** One module specifier a source file imports, and where. */
export interface ImportSite {
  specifier: string;
  /** `libs/kube/src/client.ts:12`, relative to the repository root. */
  at: string;
  /** Erased by the compiler (`import type`, or only `type` names): nothing to install. */
  typeOnly: boolean;
}

/**
 * Every static import, re-export and `import('…')` with a literal specifier in `text`. Type-only
 * ones are marked so: `import type …`, `import { type A, type B } …`, `export type { … } from`.
 */
export function importsOf(text: string, file: string): ImportSite[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const sites: ImportSite[] = [];
  const add = (literal: ts.Expression, typeOnly: boolean): void => {
    if (!ts.isStringLiteralLike(literal)) return;
    const { line } = source.getLineAndCharacterOfPosition(literal.getStart(source));
    sites.push({ specifier: literal.text, at: `${file}:${line + 1}`, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!bindings &&
            ts.isNamedImports(bindings) &&
            bindings.elements.length > 0 &&
            bindings.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const clause = node.exportClause;
      const typeOnly =
        node.isTypeOnly ||
        (!!clause &&
          ts.isNamedExports(clause) &&
          clause.elements.length > 0 &&
          clause.elements.every((e) => e.isTypeOnly));
      add(node.moduleSpecifier, typeOnly);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference)
    ) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0]
    ) {
      add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

const builtins = new Set(builtinModules);
const isBuiltin = (specifier: string): boolean =>
  specifier.startsWith('node:') || builtins.has(packageName(specifier));
const isRelative = (specifier: string): boolean =>
  specifier.startsWith('.') || specifier.startsWith('/');

/** A test, or test support: not in the bundle, not the image's business. */
const isTestFile = (path: string): boolean =>
  /\.test\.ts$/.test(path) || /(^|\/)(tests|bench)\//.test(path);

/** The non-test TypeScript sources under `<dir>/src`, relative to `root`, sorted. */
function sourceFiles(root: string, dir: string): string[] {
  const files: string[] = [];
  const walk = (path: string): void => {
    for (const entry of readdirSync(join(root, path), { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (/\.ts$/.test(entry.name) && !/\.d\.ts$/.test(entry.name) && !isTestFile(child))
        files.push(child);
    }
  };
  if (existsSync(join(root, dir, 'src'))) walk(join(dir, 'src'));
  return files.sort();
}

interface PackageJson {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  overrides?: Record<string, unknown>;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

/** Every workspace package (`@steward/*`) by name → its directory relative to `root`. */
export function workspacePackages(root = repoRoot): Map<string, string> {
  const packages = new Map<string, string>();
  for (const folder of ['apps', 'libs', 'e2e']) {
    if (!existsSync(join(root, folder))) continue;
    for (const name of readdirSync(join(root, folder)).sort()) {
      const file = join(root, folder, name, 'package.json');
      if (existsSync(file)) packages.set(readJson<PackageJson>(file).name, join(folder, name));
    }
  }
  return packages;
}

/** What one workspace package's non-test sources import at run time. */
interface PackageImports {
  dir: string;
  /** Third-party package → where it is imported (first site per file). */
  external: Map<string, string[]>;
  /** `@steward/*` package → where it is imported. */
  workspace: Map<string, string[]>;
  /** Third-party packages imported for their types only (which its declarations may expose). */
  typesOnly: Set<string>;
}

function packageImports(root: string, dir: string, workspace: Map<string, string>): PackageImports {
  const result: PackageImports = {
    dir,
    external: new Map(),
    workspace: new Map(),
    typesOnly: new Set(),
  };
  for (const file of sourceFiles(root, dir)) {
    for (const site of importsOf(readFileSync(join(root, file), 'utf8'), file)) {
      if (isRelative(site.specifier) || isBuiltin(site.specifier)) continue;
      const name = packageName(site.specifier);
      if (site.typeOnly) {
        if (!workspace.has(name)) result.typesOnly.add(name);
        continue;
      }
      const into = workspace.has(name) ? result.workspace : result.external;
      const sites = into.get(name) ?? [];
      if (!sites.some((s) => s.startsWith(`${file}:`))) sites.push(site.at);
      into.set(name, sites);
    }
  }
  return result;
}

/**
 * The `@steward/*` packages that the non-test sources of the workspace package in `dir` (relative
 * to `root`) reach at run time, directly or through other workspace packages, sorted: what an
 * app's package.json lists (new-project.ts writes a new app's list with it).
 */
export function reachedWorkspacePackages(dir: string, root = repoRoot): string[] {
  const workspace = workspacePackages(root);
  const self = [...workspace].find(([, d]) => d === dir)?.[0];
  const reached = new Set<string>();
  const queue = [dir];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const name of packageImports(root, next, workspace).workspace.keys()) {
      if (name === self || reached.has(name)) continue;
      reached.add(name);
      queue.push(workspace.get(name)!);
    }
  }
  return [...reached].sort();
}

/** `a.ts:3, b.ts:9` (at most three places, then "and N more"). */
function where(sites: string[]): string {
  const shown = sites.slice(0, 3).join(', ');
  return sites.length > 3 ? `${shown} and ${sites.length - 3} more` : shown;
}

interface Lockfile {
  packages: Record<string, { version?: string }>;
}

/** The version package-lock.json installs for `pkg` as seen from the workspace package in `dir`. */
function lockedVersion(lock: Lockfile, dir: string, pkg: string): string | undefined {
  return (
    lock.packages[`${dir}/node_modules/${pkg}`]?.version ??
    lock.packages[`node_modules/${pkg}`]?.version
  );
}

/**
 * Everything wrong with `app`'s dependencies, one sentence each, naming the app, the package and
 * where it is imported or declared; empty when the image installs exactly what the code imports.
 */
export function appDependencyProblems(app: string, root = repoRoot): string[] {
  const workspace = workspacePackages(root);
  const lock = readJson<Lockfile>(join(root, 'package-lock.json'));
  const rootPackage = readJson<PackageJson>(join(root, 'package.json'));
  const rootPins = new Map<string, string>(
    Object.entries({
      ...rootPackage.devDependencies,
      ...rootPackage.dependencies,
      ...Object.fromEntries(
        Object.entries(rootPackage.overrides ?? {}).filter(([, v]) => typeof v === 'string'),
      ),
    }) as [string, string][],
  );
  const appDir = join('apps', app);
  const appPackage = readJson<PackageJson>(join(root, appDir, 'package.json'));
  const problems: string[] = [];

  // The closure of workspace packages the app's code reaches, breadth first.
  const closure = new Map<string, PackageImports>([
    [appPackage.name, packageImports(root, appDir, workspace)],
  ]);
  const reachedFrom = new Map<string, string[]>();
  for (const [, imports] of closure) {
    for (const [name, sites] of imports.workspace) {
      if (name === appPackage.name) continue;
      reachedFrom.set(name, [...(reachedFrom.get(name) ?? []), ...sites]);
      if (!closure.has(name))
        closure.set(name, packageImports(root, workspace.get(name)!, workspace));
    }
  }

  // The app lists the whole closure of @steward/* libraries, and nothing else of the workspace.
  const listed = Object.keys(appPackage.dependencies ?? {}).filter((d) => workspace.has(d));
  for (const [name, sites] of [...reachedFrom].sort(([a], [b]) => a.localeCompare(b))) {
    if (!listed.includes(name)) {
      problems.push(
        `${app}: ${appDir}/package.json does not list ${name}, which ${where(sites)} imports (the image would lack ${name}'s dependencies)`,
      );
    }
  }
  for (const name of listed.filter((n) => !reachedFrom.has(n)).sort()) {
    problems.push(
      `${app}: ${appDir}/package.json lists ${name}, which none of its code reaches (the image would install ${name}'s dependencies for nothing)`,
    );
  }

  // Each package of the closure declares what its sources import, at the locked version; the
  // image carries nothing that no package of the closure imports at run time. (A package may
  // declare what it imports only for types: its declarations can expose them.)
  const importedByClosure = new Set([...closure.values()].flatMap((c) => [...c.external.keys()]));
  for (const [name, { dir, external, typesOnly }] of closure) {
    const declared = readJson<PackageJson>(join(root, dir, 'package.json')).dependencies ?? {};
    for (const [pkg, sites] of [...external].sort(([a], [b]) => a.localeCompare(b))) {
      if (!(pkg in declared)) {
        problems.push(
          `${app}: ${where(sites)} imports ${pkg}, which ${dir}/package.json does not declare (the image would not install it)`,
        );
      }
    }
    for (const [pkg, version] of Object.entries(declared).sort(([a], [b]) => a.localeCompare(b))) {
      if (workspace.has(pkg)) continue;
      if (!importedByClosure.has(pkg)) {
        problems.push(
          `${app}: ${dir}/package.json declares ${pkg}, which no non-test source of ${app} or its libraries imports at run time${typesOnly.has(pkg) ? ` (${name} imports only its types)` : ''} (the image would carry it for nothing)`,
        );
        continue;
      }
      if (!external.has(pkg) && !typesOnly.has(pkg)) {
        problems.push(
          `${app}: ${dir}/package.json declares ${pkg}, which no non-test source of ${name} imports`,
        );
      }
      const locked = lockedVersion(lock, dir, pkg);
      if (locked !== version) {
        problems.push(
          `${app}: ${dir}/package.json declares ${pkg} ${version}, but package-lock.json installs ${locked ?? 'nothing'} for it (run npm install)`,
        );
      }
      const pinned = rootPins.get(pkg);
      if (pinned !== undefined && pinned !== version) {
        problems.push(
          `${app}: ${dir}/package.json declares ${pkg} ${version}, but the root package.json pins ${pinned}`,
        );
      }
    }
  }
  return problems;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const apps = process.argv.length > 2 ? process.argv.slice(2) : controllers().map((c) => c.app);
  const problems = apps.flatMap((app) => appDependencyProblems(app));
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  if (!problems.length) process.stdout.write(`${apps.join(', ')}: dependencies match imports\n`);
  process.exit(problems.length ? 1 : 0);
}
