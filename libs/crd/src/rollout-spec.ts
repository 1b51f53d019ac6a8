import Type from 'typebox';
import { StringEnum } from './schema-helpers.js';

/**
 * How a rolling update replaces a workload's primary — the one instance clients write to — once
 * every other instance runs the new template. The same two methods for every in-cluster kind.
 */
export const PrimaryUpdateMethods = ['Switchover', 'Restart'] as const;
export type PrimaryUpdateMethod = (typeof PrimaryUpdateMethods)[number];

/**
 * `spec.rollout`: how a template change (image, configuration, resources, scheduling) rolls.
 * `replica` is what the kind calls the instances that follow the primary (`standby`, `replica`);
 * `switchover` says how the kind's switchover makes sure the target has every acknowledged write;
 * `restart`, what `Restart` means for the kind when it differs from PostgreSQL's (held failover).
 */
export function RolloutSpec(
  replica: string,
  switchover: string,
  restart = 'Restart restarts the primary in place (writes stop until it is back; the failover rules hold off meanwhile).',
) {
  return Type.Object(
    {
      primary: Type.Optional(
        StringEnum(PrimaryUpdateMethods, {
          default: 'Switchover',
          description: `How the primary is updated, after every ${replica} (one at a time): Switchover (default) first moves the primary role to an up-to-date, caught-up ${replica} — ${switchover} — then restarts the old primary, which rejoins as a ${replica}; writes pause for the switchover only, and status.switchover records when they stopped and resumed. ${restart} A single instance is always restarted in place.`,
        }),
      ),
    },
    {
      additionalProperties: false,
      description: `How a change of the pod template rolls: ${replica}s first, one at a time, each once the cluster is ready, the primary last.`,
    },
  );
}
