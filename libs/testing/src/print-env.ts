import { spawn } from 'node:child_process';

/** The `STEWARD_*=value` lines of an install script's `--print-env` output. */
export function parsePrintEnv(output: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of output.split('\n')) {
    const match = /^(STEWARD_[A-Z0-9_]+)=(.+)$/.exec(line.trim());
    if (match?.[1] && match[2]) env[match[1]] = match[2];
  }
  return env;
}

/**
 * Runs one of the repository's install scripts (tools/control-plane/build.sh,
 * tools/backends/moto/install.sh) with `--print-env`: it installs what is missing, with progress on
 * this process's stderr, then prints where things are. Rejects naming the script when it fails.
 */
export async function runPrintEnv(
  script: string,
  args: string[] = [],
): Promise<Record<string, string>> {
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('bash', [script, '--print-env', ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(
            new Error(
              `steward: ${script} failed with exit code ${code}; its output above names the failed step and its log`,
            ),
          ),
    );
  });
  return parsePrintEnv(output);
}

const installed = new Map<string, Promise<Record<string, string>>>();

/**
 * The variables `names` (`STEWARD_*`): from this process's environment when every one is set
 * (`npm test` exports them), else from `script --print-env` (see {@link runPrintEnv}: it installs
 * what is missing), once per script and process — a failed run is tried again by the next call.
 * Rejects naming the variables the script did not print.
 */
export function installedEnv(
  script: string,
  names: readonly string[],
): Promise<Record<string, string>> {
  const fromEnv = names.map((name) => [name, process.env[name] ?? ''] as const);
  if (fromEnv.every(([, value]) => value)) return Promise.resolve(Object.fromEntries(fromEnv));
  let pending = installed.get(script);
  if (!pending) {
    pending = runPrintEnv(script).then((env) => {
      const missing = names.filter((name) => !env[name]);
      if (missing.length)
        throw new Error(`steward: ${script} --print-env did not print ${missing.join(', ')}`);
      return Object.fromEntries(names.map((name) => [name, env[name]!]));
    });
    installed.set(script, pending);
    pending.catch(() => installed.delete(script));
  }
  return pending;
}
