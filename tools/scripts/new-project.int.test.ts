// `new-project.ts controller <Kind>` (issue 9, item 7): the scaffold's output for a throwaway kind —
// and, with `--workload` (issue 25, item 9), for a throwaway in-cluster kind next to it — passes
// the whole pipeline as written — generators' checks, lint, typecheck, build and every test
// of its four projects (a real API server, the shared chart suite, the app as a process under its
// chart's RBAC), the app's dependency check, the module boundaries, helm lint and prettier — in a
// throwaway copy of the repository, so the real tree is never written to.
//
// The copy holds every file git would commit from the working tree (tracked and untracked, not
// ignored: uncommitted changes included) and a node_modules of its own: a directory of symbolic
// links to every entry of the real node_modules except @steward and dot-directories (caches that
// tools write to), plus @steward links to the copy's own workspace packages, as npm would make
// them (tsx-run tools such as generate-crds.ts resolve `@steward/*` through them; tsc, vitest,
// esbuild and Nx use tsconfig.base.json's paths). Nx runs without its daemon, with its cache and
// workspace data in the copy.
import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
} from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspacePackages } from './app-dependencies.js';
import { controllerNames, familyPaths, familyProjects } from './scaffold-names.js';

const root = join(import.meta.dirname, '..', '..');
const names = controllerNames('Gadget');
/** The workload family, scaffolded in the same copy: none of its tests needs the node tier. */
const workload = controllerNames('Gizmo', { workload: true });
const families = [names, workload];
const projects = families.flatMap(familyProjects);
/** What the scaffold writes that `prettier --check` must find formatted. */
const formatted = [
  ...families.flatMap((family) => familyPaths(family).slice(0, -1)),
  'tsconfig.base.json',
];

interface Outcome {
  code: number | null;
  output: string;
}

/** Runs `command args` in `cwd`, stdout and stderr interleaved; never rejects for an exit code. */
function run(
  cwd: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      output += `\n[killed after ${timeoutMs / 1000} s]\n`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The last `lines` lines of `text`. */
const tail = (text: string, lines = 150): string => text.split('\n').slice(-lines).join('\n');

/** `KEY=value` lines (what the build scripts' `--print-env` prints) → a record. */
function parseEnv(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .map((line) => /^(STEWARD_[A-Z0-9_]+)=(.*)$/.exec(line.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!.replace(/^['"]|['"]$/g, '')]),
  );
}

/**
 * What the pipeline needs that is not in the repository, or the names of what is missing: git
 * (to list the files), an installed node_modules, the control-plane binaries (helm among them)
 * and the kstatus binary, from the environment or from their build scripts' `--print-env` (which
 * builds them when they are not cached).
 */
async function prerequisites(): Promise<Record<string, string>> {
  const missing: string[] = [];
  try {
    execFileSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root, stdio: 'ignore' });
  } catch {
    missing.push(`git, and a git checkout at ${root} (the copy is made of what git lists)`);
  }
  if (!existsSync(join(root, 'node_modules', '.bin', 'nx'))) {
    missing.push(`an installed node_modules at ${root} (run npm install)`);
  }
  const env: Record<string, string> = {};
  const binaries: [script: string, names: string[]][] = [
    [
      'tools/control-plane/build.sh',
      [
        'STEWARD_ETCD_BIN',
        'STEWARD_KUBE_APISERVER_BIN',
        'STEWARD_KUBE_CONTROLLER_MANAGER_BIN',
        'STEWARD_KUBECTL_BIN',
        'STEWARD_HELM_BIN',
      ],
    ],
    ['tools/kstatus/build.sh', ['STEWARD_KSTATUS_BIN']],
  ];
  for (const [script, wanted] of binaries) {
    if (wanted.every((name) => process.env[name])) {
      for (const name of wanted) env[name] = process.env[name]!;
    } else {
      const printed = await run(root, 'bash', [script, '--print-env'], process.env, 40 * 60_000);
      const values = parseEnv(printed.output);
      if (printed.code !== 0 || wanted.some((name) => !values[name])) {
        missing.push(
          `${wanted.join(', ')} (bash ${script} failed with ${printed.code}):\n${tail(printed.output, 20)}`,
        );
        continue;
      }
      for (const name of wanted) env[name] = values[name]!;
    }
    for (const name of wanted) {
      if (env[name] && !existsSync(env[name])) missing.push(`${name}=${env[name]} does not exist`);
    }
  }
  if (missing.length) {
    throw new Error(
      `new-project.int.test.ts cannot run the pipeline; missing:\n- ${missing.join('\n- ')}`,
    );
  }
  return env;
}

/** A throwaway copy of the repository's working tree with a node_modules of its own (see above). */
async function throwawayCopy(): Promise<string> {
  const copy = await mkdtemp(join(tmpdir(), 'steward-new-project-'));
  const listed = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  for (const file of new Set(listed.split('\0').filter(Boolean))) {
    const from = join(root, file);
    const stat = lstatSync(from, { throwIfNoEntry: false });
    if (!stat) continue; // deleted in the working tree
    const to = join(copy, file);
    mkdirSync(dirname(to), { recursive: true });
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else if (stat.isFile()) copyFileSync(from, to);
  }
  const modules = join(copy, 'node_modules');
  mkdirSync(join(modules, '@steward'), { recursive: true });
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    const shared = entry === '.bin' || entry === '.package-lock.json' || !entry.startsWith('.');
    if (entry !== '@steward' && shared) {
      symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
    }
  }
  for (const [name, dir] of workspacePackages(copy)) {
    symlinkSync(join('..', '..', dir), join(modules, name));
  }
  return copy;
}

/** The real tree's traces of the throwaway families: none, before and after. */
function tracesInRealTree(): string[] {
  const paths = families.flatMap(familyPaths).filter((p) => existsSync(join(root, p)));
  const links = projects
    .map((p) => join('node_modules', '@steward', p))
    .filter((p) => lstatSync(join(root, p), { throwIfNoEntry: false }));
  const base = readFileSync(join(root, 'tsconfig.base.json'), 'utf8');
  const aliases = families.some((family) => base.includes(`"@steward/${family.apiLib}"`))
    ? ['tsconfig.base.json']
    : [];
  return [...paths, ...links, ...aliases];
}

describe(`new-project.ts controller ${names.kind} and ${workload.kind} --workload, in a throwaway copy of the repository`, () => {
  let copy: string | undefined;
  let env: NodeJS.ProcessEnv;
  let scaffolded = false;
  const started = performance.now();

  beforeAll(async () => {
    const binaries = await prerequisites();
    expect(tracesInRealTree(), 'the throwaway family exists in the real tree').toEqual([]);
    copy = await throwawayCopy();
    // Nothing of the parent's Nx task or vitest worker (a nested run would take them for its own).
    const inherited = Object.entries(process.env).filter(
      ([key]) => !key.startsWith('NX_') && !key.startsWith('VITEST') && key !== 'TEST',
    );
    env = {
      ...Object.fromEntries(inherited),
      ...binaries,
      NX_DAEMON: 'false',
      NX_TUI: 'false',
      NX_NO_CLOUD: 'true',
      NX_CACHE_DIRECTORY: join(copy, '.nx', 'cache'),
      NX_WORKSPACE_DATA_DIRECTORY: join(copy, '.nx', 'workspace-data'),
      FORCE_COLOR: '0',
      NO_COLOR: '1',
    };
  });

  afterAll(async () => {
    if (copy) await rm(copy, { recursive: true, force: true });
    process.stdout.write(
      `new-project.int.test.ts: ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
    );
  });

  /** Runs one step of the pipeline in the copy; fails with its command and output. */
  async function step(
    command: string,
    args: string[],
    options: { timeoutMs?: number; expectCode?: number } = {},
  ): Promise<string> {
    if (!copy) throw new Error('no copy of the repository (see beforeAll)');
    const { timeoutMs = 5 * 60_000, expectCode = 0 } = options;
    const { code, output } = await run(copy, command, args, env, timeoutMs);
    if (code !== expectCode) {
      const log = join(tmpdir(), `steward-new-project-${Date.now()}.log`);
      await writeFile(log, output);
      throw new Error(
        `\`${command} ${args.join(' ')}\` exited ${code} (expected ${expectCode}) in the copy; ` +
          `its whole output is in ${log}, its end:\n${tail(output)}`,
      );
    }
    return output;
  }
  const afterScaffold = () => {
    if (!scaffolded) throw new Error('the scaffold did not run (see the first failure)');
  };

  it.each(families)(
    'writes the family of $kind (workload: $workload), its chart with the generated CRDs, values schema and dashboard, and says what next',
    async (family) => {
      const output = await step('npx', [
        'tsx',
        'tools/scripts/new-project.ts',
        'controller',
        family.kind,
        ...(family.workload ? ['--workload'] : []),
      ]);
      scaffolded = true;
      const written = familyPaths(family).filter((p) => existsSync(join(copy!, p)));
      expect(written).toEqual(familyPaths(family).slice(0, -1)); // no per-chart file in tools/charts
      for (const generated of [
        `charts/${family.app}/crds/${family.plural}.${family.group}.yaml`,
        // A workload kind resolves kubernetes ProviderProfiles: their CRD ships with it.
        ...(family.workload ? [`charts/${family.app}/crds/providerprofiles.steward.dev.yaml`] : []),
        `charts/${family.app}/values.schema.json`,
        `charts/${family.app}/dashboards/${family.app}.json`,
      ]) {
        expect(existsSync(join(copy!, generated)), generated).toBe(true);
      }
      expect(output).toContain(
        `nx run-many -t lint typecheck build test -p ${familyProjects(family).join(' ')}`,
      );
    },
    180_000,
  );

  it('refuses the same kind again, naming what exists, and writes nothing', async () => {
    afterScaffold();
    const output = await step(
      'npx',
      ['tsx', 'tools/scripts/new-project.ts', 'controller', names.kind],
      { expectCode: 1 },
    );
    expect(output).toContain(`the ${names.family} family exists already (libs/${names.apiLib},`);
  }, 60_000);

  it('leaves the generated files as the generators would write them (--check)', async () => {
    afterScaffold();
    await step('npx', ['tsx', 'tools/scripts/generate-crds.ts', '--check']);
    await step('npx', ['tsx', 'tools/scripts/generate-charts.ts', '--check']);
  }, 120_000);

  it(
    `passes lint, typecheck, build and test of ${projects.join(', ')}`,
    async () => {
      afterScaffold();
      const output = await step(
        'npx',
        ['nx', 'run-many', '-t', 'lint', 'typecheck', 'build', 'test', '-p', ...projects],
        { timeoutMs: 20 * 60_000 },
      );
      expect(output).toContain(
        `Successfully ran targets lint, typecheck, build, test for ${projects.length} projects`,
      );
    },
    21 * 60_000,
  );

  it("declares exactly what its code imports, keeps the families apart, and follows the registry's conventions", async () => {
    afterScaffold();
    for (const family of families)
      await step('npx', ['tsx', 'tools/scripts/app-dependencies.ts', family.app]);
    await step('npx', [
      'vitest',
      'run',
      '--root',
      'tools',
      'scripts/module-boundaries.test.ts',
      'scripts/apps.test.ts',
      'scripts/examples.test.ts',
    ]);
  }, 300_000);

  it('passes helm lint --strict', async () => {
    afterScaffold();
    const output = await step(env['STEWARD_HELM_BIN']!, [
      'lint',
      '--strict',
      ...families.map((family) => `charts/${family.app}`),
    ]);
    expect(output).toContain(`${families.length} chart(s) linted, 0 chart(s) failed`);
  }, 60_000);

  it('is formatted as prettier formats it', async () => {
    afterScaffold();
    await step('npx', ['prettier', '--check', ...formatted]);
  }, 60_000);

  it('never touched the real tree', () => {
    expect(tracesInRealTree()).toEqual([]);
  });
});
