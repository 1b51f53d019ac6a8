/**
 * The machine's node tier from the command line (what `npm test` and developers use):
 *
 *   node --import tsx tools/scripts/node-tier.ts hold     start or join it; print the kubeconfig;
 *                                                         hold a lease until SIGINT/SIGTERM
 *   node --import tsx tools/scripts/node-tier.ts stop     stop it now, leases or not; wait until gone
 *   node --import tsx tools/scripts/node-tier.ts check    exit 1, listing them, if processes, mounts,
 *                                                         cgroups, nft tables or the bridge are left
 */
import {
  acquireNodeTier,
  leftovers,
  nodeTierBinaries,
  nodeTierLayout,
  stopNodeTier,
} from '@steward/testing-node-tier';

const [command] = process.argv.slice(2);
const say = (line: string): void => void process.stdout.write(`${line}\n`);
const warn = (line: string): void => void process.stderr.write(`${line}\n`);
const layout = nodeTierLayout();

switch (command) {
  case 'hold': {
    const tier = await acquireNodeTier();
    say(`node tier Ready: ${tier.server}`);
    say(`export KUBECONFIG=${tier.kubeconfigPath}`);
    const stop = new Promise((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    const keepAlive = setInterval(() => undefined, 60_000);
    await stop;
    clearInterval(keepAlive);
    await tier.release();
    break;
  }
  case 'stop': {
    say((await stopNodeTier()) ? 'node tier stopped' : 'node tier still in use');
    break;
  }
  case 'check': {
    const binaries = await nodeTierBinaries();
    const left = await leftovers({
      layout,
      shim: binaries.containerdShim,
      nft: binaries.nft,
      binaries: [
        binaries.kubelet,
        binaries.kubeScheduler,
        binaries.kubeProxy,
        binaries.containerd,
        binaries.containerdShim,
        binaries.provisioner,
      ],
    });
    if (left.length) {
      warn(`node tier left behind:\n  ${left.join('\n  ')}`);
      process.exit(1);
    }
    say('node tier: nothing left on the host');
    break;
  }
  default:
    warn('usage: node-tier.ts hold | stop | check');
    process.exit(2);
}
