/**
 * The machine's node tier from the command line (what `npm test` and developers use):
 *
 *   node --import tsx tools/scripts/node-tier.ts hold     start or join it; print the kubeconfig;
 *                                                         hold a lease until SIGINT/SIGTERM
 *   node --import tsx tools/scripts/node-tier.ts stop     stop it now, leases or not; wait until gone
 *   node --import tsx tools/scripts/node-tier.ts check    exit 1, listing them, if processes, mounts,
 *                                                         cgroups, nft tables or the bridge are left
 *
 * With `--nodes 3`, the same for the multi-node tier (docs/multi-node-tier.md): `hold` holds it
 * (exclusively: a test that needs it waits until this lets go); `--network-policy` runs the
 * NetworkPolicy agents; `check` lists what of it is left (processes under its cgroup, cgroups,
 * namespaces, its link, mounts).
 */
import {
  acquireNodeTier,
  leftovers,
  multiNodeLeftovers,
  nodeTierBinaries,
  nodeTierLayout,
  stopMultiNodeTier,
  stopNodeTier,
  type NodeTier,
} from '@steward/testing-node-tier';

const args = process.argv.slice(2);
const [command] = args;
const nodesAt = args.indexOf('--nodes');
const nodes = nodesAt >= 0 ? Number(args[nodesAt + 1]) : 1;
if (nodes !== 1 && nodes !== 3) {
  process.stderr.write(`--nodes ${args[nodesAt + 1]}: the tier has 1 or 3 nodes\n`);
  process.exit(2);
}
const say = (line: string): void => void process.stdout.write(`${line}\n`);
const warn = (line: string): void => void process.stderr.write(`${line}\n`);
const layout = nodeTierLayout();

switch (command) {
  case 'hold': {
    const tier: NodeTier =
      nodes === 3
        ? await acquireNodeTier({ nodes: 3, networkPolicy: args.includes('--network-policy') })
        : await acquireNodeTier();
    say(`node tier Ready: ${tier.server}${nodes === 3 ? ' (3 nodes)' : ''}`);
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
    if (nodes === 3) {
      await stopMultiNodeTier();
      say('multi-node tier stopped');
    } else say((await stopNodeTier()) ? 'node tier stopped' : 'node tier still in use');
    break;
  }
  case 'check': {
    if (nodes === 3) {
      const left = await multiNodeLeftovers();
      if (left.length) {
        warn(`multi-node tier left behind:\n  ${left.join('\n  ')}`);
        process.exit(1);
      }
      say('multi-node tier: nothing left on the host');
      break;
    }
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
    warn('usage: node-tier.ts hold | stop | check [--nodes 1|3] [--network-policy]');
    process.exit(2);
}
