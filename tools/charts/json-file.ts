// JSON files as the repository commits them: prettier-clean as written, so `prettier --check .`
// and the generators' `--check` agree on every byte.
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { format, resolveConfig } from 'prettier';

/** The path of an object member from the document's root, e.g. `['definitions', 'dnsLabel']`. */
export type JsonPath = readonly string[];

/**
 * Whether an object is written one member a line. Prettier keeps such an object expanded and
 * prints any other on one line when it fits in the print width, so this decides the file's layout
 * and nothing else.
 */
export type ExpandObject = (path: JsonPath, value: Readonly<Record<string, unknown>>) => boolean;

/** Every object one member a line (Grafana's own export layout). */
export const expandEveryObject: ExpandObject = () => true;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function jsonText(value: unknown, expand: ExpandObject, path: JsonPath): string {
  if (Array.isArray(value)) {
    return `[${value.map((item) => jsonText(item, expand, path)).join(', ')}]`;
  }
  if (!isObject(value)) return JSON.stringify(value);
  const members = Object.entries(value)
    .filter(([, member]) => member !== undefined)
    .map(([key, member]) => `${JSON.stringify(key)}: ${jsonText(member, expand, [...path, key])}`);
  if (members.length === 0) return '{}';
  return expand(path, value) ? `{\n${members.join(',\n')}\n}` : `{ ${members.join(', ')} }`;
}

/**
 * `value` as the text of the JSON file `repoPath` (relative to `repoRoot`), formatted by prettier
 * with the options the repository configures for that path.
 */
export async function jsonFile(
  repoRoot: string,
  repoPath: string,
  value: unknown,
  expand: ExpandObject = expandEveryObject,
): Promise<string> {
  const filepath = join(repoRoot, repoPath);
  const options = (await resolveConfig(filepath)) ?? {};
  return format(jsonText(value, expand, []), { ...options, filepath, parser: 'json' });
}

/**
 * `value` as the text of the YAML file `repoPath`, below a comment of `header`'s lines, formatted
 * by prettier as the repository configures it for that path.
 */
export async function yamlFile(
  repoRoot: string,
  repoPath: string,
  value: unknown,
  header: string,
): Promise<string> {
  const filepath = join(repoRoot, repoPath);
  const options = (await resolveConfig(filepath)) ?? {};
  const comment = header
    .split('\n')
    .map((line) => `# ${line}`)
    .join('\n');
  const text = `${comment}\n${dump(value, { lineWidth: -1, noRefs: true })}`;
  return format(text, { ...options, filepath, parser: 'yaml' });
}
