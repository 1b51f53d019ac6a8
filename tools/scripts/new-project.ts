// Scaffolds a workspace project with the targets, tsconfigs and vitest config every project shares,
// and registers its import alias in tsconfig.base.json (the one place aliases are declared); or a
// whole controller family from its kind.
//
//   npx tsx tools/scripts/new-project.ts lib workqueue type:runtime scope:shared
//   npx tsx tools/scripts/new-project.ts app kafka-topic-controller type:app scope:kafka-topic
//   npx tsx tools/scripts/new-project.ts controller Widget [--group widget.steward.dev]
//       [--plural widgets] [--short-name wid] [--workload]
//
// Every project has one `type:` tag (its layer) and one `scope:` tag (its CRD family, or `shared`);
// eslint.config.js's module boundaries are built on both (tools/scripts/module-boundaries.test.ts).
//
// `controller <Kind>` writes the family `<f>` (kebab case of the kind) as scaffold-family.ts lays
// it out and new-controller.ts fills it: libs/<f>-api, libs/<f>, apps/<f>-controller,
// charts/<f>-controller, e2e/<f>-controller-e2e, examples/<f>/ and the two aliases; links the four
// packages into node_modules/@steward as npm would; formats what it wrote; then runs
// generate-crds.ts and generate-charts.ts, so the chart has its CRD, values schema and dashboard.
// The output passes lint, typecheck, build and test as written (new-project.int.test.ts). It
// refuses a family that exists (any of its paths or project names). `--workload` makes the kind an
// in-cluster workload (new-workload-controller.ts): per object a StatefulSet, its Services,
// ConfigMap, PodDisruptionBudget and NetworkPolicy, on @steward/workload and
// @steward/provider-profile.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { reachedWorkspacePackages } from './app-dependencies.js';
import { controllerFiles } from './new-controller.js';
import {
  controllerNames,
  familyPaths,
  familyProjects,
  InvalidControllerNameError,
  type ControllerNames,
} from './scaffold-names.js';
import { appPackageJson, type ScaffoldVersions } from './scaffold-project.js';
import { folders, projectFiles, type Kind } from './project-files.js';

export { projectFiles, type Kind } from './project-files.js';

const repoRoot = join(import.meta.dirname, '..', '..');

/** Adds `@steward/<name>` → `<folder>/<name>/src/index.ts` to tsconfig.base.json's paths, sorted. */
async function addAliases(root: string, libs: string[]): Promise<void> {
  const basePath = join(root, 'tsconfig.base.json');
  const base = JSON.parse(await readFile(basePath, 'utf8')) as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  for (const name of libs)
    base.compilerOptions.paths[`@steward/${name}`] = [`libs/${name}/src/index.ts`];
  base.compilerOptions.paths = Object.fromEntries(
    Object.entries(base.compilerOptions.paths).sort(([a], [b]) => a.localeCompare(b)),
  );
  await writeFile(basePath, `${JSON.stringify(base, null, 2)}\n`);
}

/** Runs prettier over `paths` (relative to `root`): the repository's formatting. */
function format(root: string, paths: string[]): void {
  execFileSync('npx', ['prettier', '--write', '--log-level', 'warn', ...paths], {
    cwd: root,
    stdio: 'inherit',
  });
}

async function main(kind: Kind, name: string, tags: string[]): Promise<void> {
  const root = repoRoot;
  const dir = join(root, folders[kind], name);
  if (existsSync(dir)) throw new Error(`${dir} exists already`);
  await mkdir(join(dir, 'src'), { recursive: true });
  for (const [file, text] of Object.entries(projectFiles(kind, name, tags))) {
    await writeFile(join(dir, file), text);
  }
  if (kind === 'lib') await addAliases(root, [name]);
  // match the repository's formatting (prettier folds short arrays onto one line)
  format(root, [dir, 'tsconfig.base.json']);
  process.stdout.write(
    `created ${folders[kind]}/${name} (${tags.join(', ')}); run npm install to link it\n`,
  );
}

/** Thrown when the family of a kind exists already, naming what is there. */
export class FamilyExistsError extends Error {
  override readonly name = 'FamilyExistsError';
}

/** Every Nx project name of the workspace (the `name` of each project.json). */
function projectNames(root: string): Set<string> {
  const files = Object.values(folders)
    .flatMap((folder) =>
      existsSync(join(root, folder))
        ? readdirSync(join(root, folder)).map((n) => join(root, folder, n, 'project.json'))
        : [],
    )
    .concat(join(root, 'tools', 'project.json'))
    .filter((file) => existsSync(file));
  return new Set(
    files.map((file) => (JSON.parse(readFileSync(file, 'utf8')) as { name: string }).name),
  );
}

/**
 * What of the family of `names` is already under `root`: its paths (the scaffold writes none of
 * them over) and Nx projects of its names anywhere. Empty when the family is new.
 */
export function existingFamily(root: string, names: ControllerNames): string[] {
  const paths = familyPaths(names).filter((p) => existsSync(join(root, p)));
  const taken = projectNames(root);
  const projects = familyProjects(names)
    .filter((p) => taken.has(p))
    .map((p) => `Nx project ${p}`);
  return [...paths, ...projects];
}

interface Lockfile {
  packages: Record<string, { version?: string }>;
}

/** The versions package-lock.json installs at the root for the packages the scaffold declares. */
async function lockedVersions(root: string): Promise<ScaffoldVersions> {
  const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as Lockfile;
  const version = (pkg: string): string => {
    const v = lock.packages[`node_modules/${pkg}`]?.version;
    if (!v) throw new Error(`package-lock.json installs no ${pkg}: run npm install`);
    return v;
  };
  return {
    typebox: version('typebox'),
    'reflect-metadata': version('reflect-metadata'),
    tsyringe: version('tsyringe'),
  };
}

/** `node_modules/@steward/<package>` → its directory, as npm links workspaces (relative links). */
async function linkPackages(root: string, dirs: string[]): Promise<void> {
  const scope = join(root, 'node_modules', '@steward');
  for (const dir of dirs) {
    const link = join(scope, dir.split('/').at(-1)!);
    if (existsSync(link) || isSymlink(link)) continue;
    await symlink(relative(scope, join(root, dir)), link);
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Writes the controller family of `names` under `root` (see the header), then formats it and
 * generates its chart's CRD, values schema and dashboard. Returns the paths it wrote, relative to
 * `root`. Throws `FamilyExistsError` before writing anything when any part of the family exists.
 */
export async function scaffoldController(root: string, names: ControllerNames): Promise<string[]> {
  const existing = existingFamily(root, names);
  if (existing.length) {
    throw new FamilyExistsError(
      `the ${names.family} family exists already (${existing.join(', ')}): nothing written; pick another kind`,
    );
  }
  if (!existsSync(join(root, 'node_modules', '@steward'))) {
    throw new Error(
      `${join(root, 'node_modules', '@steward')} does not exist: run npm install first`,
    );
  }
  const versions = await lockedVersions(root);
  const files = controllerFiles(names, versions);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, file)), { recursive: true });
    await writeFile(join(root, file), text);
  }
  // The library chart, vendored as a symbolic link (charts/README.md): no `helm dependency build`.
  const vendored = join(root, 'charts', names.app, 'charts', 'steward-common');
  await mkdir(dirname(vendored), { recursive: true });
  await symlink(join('..', '..', 'steward-common'), vendored);
  // The app lists exactly the @steward/* closure its code reaches (app-dependencies.ts).
  const appPackage = join('apps', names.app, 'package.json');
  const closure = reachedWorkspacePackages(join('apps', names.app), root);
  await writeFile(join(root, appPackage), appPackageJson(names, versions, closure));
  await addAliases(root, [names.apiLib, names.family]);
  await linkPackages(root, [
    `libs/${names.apiLib}`,
    `libs/${names.family}`,
    `apps/${names.app}`,
    `e2e/${names.e2e}`,
  ]);
  const written = [...Object.keys(files), appPackage].sort();
  format(root, [...written, 'tsconfig.base.json']);
  for (const generator of ['generate-crds.ts', 'generate-charts.ts']) {
    execFileSync('npx', ['tsx', join('tools', 'scripts', generator)], {
      cwd: root,
      stdio: 'inherit',
    });
  }
  return [...written, relative(root, vendored), 'tsconfig.base.json'];
}

const usage = `usage: new-project.ts lib|app|e2e <name> type:<type> scope:<family|shared>
       new-project.ts controller <Kind> [--group <group>] [--plural <plural>] [--short-name <name>] [--workload]
         --workload: an in-cluster kind (a StatefulSet of spec.image, Services, a ConfigMap, a PDB,
           a NetworkPolicy, grow-only volumes)
`;

/** `controller <Kind> [--group g] [--plural p] [--short-name s] [--workload]` → the family's names. */
export function parseControllerArgs(args: string[]): ControllerNames {
  const [kind, ...rest] = args;
  const options: { group?: string; plural?: string; shortName?: string; workload?: boolean } = {};
  const flags = { '--group': 'group', '--plural': 'plural', '--short-name': 'shortName' } as const;
  for (let i = 0; i < rest.length;) {
    if (rest[i] === '--workload' && !options.workload) {
      options.workload = true; // a flag without a value
      i += 1;
      continue;
    }
    const flag = rest[i] as keyof typeof flags;
    const value = rest[i + 1];
    if (!(flag in flags) || value === undefined || value.startsWith('--')) {
      throw new InvalidControllerNameError(`unexpected ${rest.slice(i).join(' ')}\n${usage}`);
    }
    options[flags[flag]] = value;
    i += 2;
  }
  if (!kind) throw new InvalidControllerNameError(`a kind is required\n${usage}`);
  return controllerNames(kind, options);
}

async function mainController(args: string[]): Promise<void> {
  let names: ControllerNames;
  try {
    names = parseControllerArgs(args);
  } catch (error) {
    if (!(error instanceof InvalidControllerNameError)) throw error;
    process.stderr.write(`new-project.ts controller: ${error.message}\n`);
    process.exit(2);
  }
  let written: string[];
  try {
    written = await scaffoldController(repoRoot, names);
  } catch (error) {
    if (!(error instanceof FamilyExistsError)) throw error;
    process.stderr.write(`new-project.ts controller: ${error.message}\n`);
    process.exit(1);
  }
  const projects = familyProjects(names);
  process.stdout.write(
    [
      '',
      `created the ${names.kind} ${names.workload ? 'workload ' : ''}controller (family ${names.family}, ${names.group}/v1alpha1, ${names.plural}, short name ${names.shortName}):`,
      ...written.map((file) => `  ${file}`),
      '  (and node_modules/@steward links for the four packages; CRD, values schema and dashboard generated)',
      '',
      'next:',
      '  npm install                 # records the new workspaces in package-lock.json (the image installs from it)',
      `  npx nx run-many -t lint typecheck build test -p ${projects.join(' ')}`,
      names.workload
        ? `  then make it yours: the spec in libs/${names.apiLib}/src/${names.family}.ts (spec.image is a placeholder), what it runs with in libs/${names.family}/src/admission.ts, the children in libs/${names.family}/src/children.ts, the phases in libs/${names.family}/src/status.ts`
        : `  then make it yours: the spec in libs/${names.apiLib}/src/${names.family}.ts, plan${names.kind} in libs/${names.family}/src/plan-${names.family}.ts`,
      `  (run npx tsx tools/scripts/generate-crds.ts after a schema change), the example in examples/${names.family}/`,
      '',
    ].join('\n'),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [kind, name, ...tags] = process.argv.slice(2);
  if (kind === 'controller') {
    await mainController(process.argv.slice(3));
  } else {
    const one = (prefix: string) => tags.filter((t) => t.startsWith(prefix)).length === 1;
    if (
      !kind ||
      !(kind in folders) ||
      !name ||
      tags.length !== 2 ||
      !one('type:') ||
      !one('scope:')
    ) {
      process.stderr.write(usage);
      process.exit(2);
    }
    await main(kind as Kind, name, tags);
  }
}
