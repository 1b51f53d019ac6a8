// The app of a scaffolded family (apps/<f>-controller), as both kinds of family have it: main.ts
// (the only file that touches the tsyringe container), app.ts (the kind's controller on the
// manager @steward/controller-process builds) and its README. What the kind's app.ts runs comes
// from its generator.
import { type ControllerNames } from './scaffold-names.js';
import { json, project } from './scaffold-project.js';

/** What a kind's app.ts adds to the manager. */
export interface AppSpec {
  /** What the process runs, for the class's doc comment (`the Widget controller`). */
  runs: string;
  /** How it takes its options, for the class's doc comment; may be empty. */
  settings?: string;
  /**
   * Names from @steward/controller-process besides runUntilStopped, Tokens, ExitCode, ProcessConfig
   * and watchSelection.
   */
  processImports?: string[];
  /** Names from the domain lib (`<camel>Controller` among them). */
  domainImports: string[];
  /** Import lines of other packages. */
  imports?: string[];
  /** Whether the app takes the process's Event recorder (`this.events`). */
  events?: boolean;
  /** `run()`'s body after `const { config, manager } = this;`, before it waits for the manager. */
  run: string;
}

function appSource(n: ControllerNames, a: AppSpec): string {
  const appClass = `${n.kind}ControllerApp`;
  const processImports = [
    'runUntilStopped',
    'Tokens',
    'type ExitCode',
    'type ProcessConfig',
    ...(a.events ? ['type ProcessEvents'] : []),
    'watchSelection',
    ...(a.processImports ?? []),
  ];
  const imports = [
    `import { type Manager } from '@steward/controller';`,
    `import { ${processImports.join(', ')} } from '@steward/controller-process';`,
    `import { ${a.domainImports.join(', ')} } from '@steward/${n.family}';`,
    ...(a.imports ?? []),
    `import { inject, injectable } from 'tsyringe';`,
  ];
  return `${imports.join('\n')}

/** The name of this application: field manager, Lease name prefix, Event reporter, service name. */
export const APP_NAME = '${n.app}';

/**
 * The ${n.app} process: ${a.runs} on one manager. \`run()\` resolves with the exit code once the
 * manager has stopped.${a.settings ? ` ${a.settings}` : ''}
 */
@injectable()
export class ${appClass} {
  constructor(
    @inject(Tokens.Config) private readonly config: ProcessConfig,
    @inject(Tokens.Manager) private readonly manager: Manager,${
      a.events
        ? `
    @inject(Tokens.EventRecorder) private readonly events: ProcessEvents,`
        : ''
    }
  ) {}

  run(): Promise<ExitCode> {
    const { config, manager } = this;
${a.run}
    return runUntilStopped(manager);
  }
}
`;
}

/** apps/<f>-controller but its package.json (new-project.ts writes it from the code's imports). */
export function appFiles(n: ControllerNames, a: AppSpec): Record<string, string> {
  const { kind: K } = n;
  const appClass = `${K}ControllerApp`;
  return project('app', `apps/${n.app}`, n.app, ['type:app', `scope:${n.family}`], {
    // written by new-project.ts from the closure of the sources' imports
    'package.json': undefined,
    'project.json': json({
      $schema: '../../node_modules/nx/schemas/project-schema.json',
      name: n.app,
      projectType: 'application',
      sourceRoot: `apps/${n.app}/src`,
      tags: ['type:app', `scope:${n.family}`],
      // apps have no unit tests: tools/scripts/apps.test.ts checks their shape, e2e/<app>-e2e runs them
      targets: {
        build: {
          executor: 'nx:run-commands',
          options: { command: `npx tsx tools/scripts/bundle-app.ts ${n.app}` },
          outputs: [`{workspaceRoot}/dist/apps/${n.app}`],
        },
        typecheck: {},
        lint: {},
      },
    }),
    'vitest.config.ts': undefined,
    'src/main.ts': `// The only file that touches the tsyringe container: reads the configuration, registers one
// provider per token, resolves the app and exits with its code.
import 'reflect-metadata';
import {
  configOrExit,
  loadProcessConfig,
  processProviders,
  resolveOrExit,
} from '@steward/controller-process';
import { container } from 'tsyringe';
import { APP_NAME, ${appClass} } from './app.js';

const config = configOrExit(APP_NAME, () => loadProcessConfig(process.env));
for (const [token, provider] of processProviders(APP_NAME, config)) {
  container.register(token, provider);
}
const app = resolveOrExit(APP_NAME, () => container.resolve(${appClass}));
process.exitCode = await app.run();
`,
    'src/app.ts': appSource(n, a),
    'README.md': `# ${n.app}

The ${K} controller as a process: \`src/main.ts\` wires the process (the only file that touches
the tsyringe container), \`src/app.ts\` adds the ${K} controller of \`@steward/${n.family}\` to the
manager that \`@steward/controller-process\` builds from the \`STEWARD_*\` variables its chart
sets.

\`\`\`sh
npx nx run ${n.app}:build     # dist/apps/${n.app}/main.js (tools/scripts/bundle-app.ts)
docker build -f apps/Dockerfile --build-arg APP=${n.app} -t steward/${n.app} .
\`\`\`

Its package.json lists every \`@steward/*\` library its code reaches and the third-party packages
\`main.ts\` imports: that is what the image installs (\`tools/scripts/app-dependencies.ts\`). The
chart is \`charts/${n.app}\`; \`e2e/${n.e2e}\` runs the bundle under exactly that chart's RBAC.
`,
  });
}
