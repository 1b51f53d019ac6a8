// The files a scaffolded family's projects have as every workspace project has them
// (project-files.ts), with the family's own on top, and the package.json files of the family:
// pure helpers for the scaffold's generators (scaffold-family.ts and the files it assembles).
import { projectFiles, type Kind } from './project-files.js';
import { type ControllerNames } from './scaffold-names.js';

/** Versions of the third-party packages the scaffold declares (the lockfile's). */
export interface ScaffoldVersions {
  typebox: string;
  'reflect-metadata': string;
  tsyringe: string;
}

/** `value` as the repository writes JSON files: two spaces, a final newline. */
export const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * The files of the project `name` in `dir`: those every project has (project-files.ts), replaced
 * or added by `overrides` (an `undefined` override leaves that file out), keyed by their path from
 * the repository root.
 */
export function project(
  kind: Kind,
  dir: string,
  name: string,
  tags: string[],
  overrides: Record<string, string | undefined>,
): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [file, text] of Object.entries({ ...projectFiles(kind, name, tags), ...overrides })) {
    if (text !== undefined) files[`${dir}/${file}`] = text;
  }
  return files;
}

/** A workspace package's package.json; `types` only for a library (its main is an index.ts). */
export const packageJson = (name: string, main: string, dependencies?: Record<string, string>) =>
  json({
    name: `@steward/${name}`,
    version: '0.0.0',
    private: true,
    type: 'module',
    main,
    ...(main.endsWith('index.ts') ? { types: main } : {}),
    ...(dependencies ? { dependencies } : {}),
  });

/** The app's package.json: the `@steward/*` closure its code reaches, and what main.ts needs. */
export function appPackageJson(n: ControllerNames, v: ScaffoldVersions, closure: string[]): string {
  return packageJson(n.app, './src/main.ts', {
    ...Object.fromEntries(closure.map((name) => [name, '*'])),
    'reflect-metadata': v['reflect-metadata'],
    tsyringe: v.tsyringe,
  });
}
