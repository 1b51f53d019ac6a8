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
