import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { multiNodeTierLayout } from '@steward/testing-node-tier';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const host = multiNodeTierLayout().hostAddress.replaceAll('.', '\\.');

describe('npm start', () => {
  it(
    'brings up the node tier, the backends, every controller as pods from its chart and the examples, every example resource reaches Ready (both PostgresClusters with their primary), and everything stops',
    async () => {
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', 'tools/scripts/start-platform.ts', '--exit-when-ready'],
        { cwd: root, timeout: 20 * 60_000, maxBuffer: 16 * 1024 * 1024 },
      );
      // three nodes in three zones
      expect(stdout).toMatch(
        /steward: nodes steward-node-a \(zone-a, [\d.]+\), steward-node-b \(zone-b, [\d.]+\), steward-node-c \(zone-c, [\d.]+\) Ready/,
      );
      // the controllers run as pods, installed from their charts
      expect(stdout).toMatch(
        /steward: database-instance-controller running in the cluster \(pod steward-system\/steward-database-instance-controller-/,
      );
      expect(stdout).toMatch(
        /steward: kafka-topic-controller running in the cluster \(pod steward-system\/steward-kafka-topic-controller-/,
      );
      expect(stdout).toMatch(/applied DatabaseInstance shop\/orders-db/);
      expect(stdout).toMatch(/providerprofile\/aws-eu +aws +True CredentialsVerified +used by 1/);
      expect(stdout).toMatch(/providerprofile\/gcp-eu +gcp +True CredentialsVerified +used by 1/);
      expect(stdout).toMatch(/shop\/databaseinstance\/orders-db +aws-eu +True Available/);
      expect(stdout).toMatch(/shop\/databaseinstance\/analytics-db +gcp-eu +True Available/);
      expect(stdout).toMatch(
        /providerprofile\/events-kafka +kafka +True CredentialsVerified +used by 2/,
      );
      expect(stdout).toMatch(
        /shop\/kafkatopic\/orders-events +events-kafka +True \w+ +6 partitions +shop\.orders-events/,
      );
      expect(stdout).toMatch(
        /shop\/kafkatopic\/customers +events-kafka +True \w+ +3 partitions +shop\.customers\.v1/,
      );
      expect(stdout).toMatch(
        new RegExp(
          `topics in Kafka \\(${host}:\\d+\\): shop\\.customers\\.v1, shop\\.orders-events`,
        ),
      );
      // both example PostgresClusters: orders (17, a primary and two streaming standbys) and the
      // small notes (15, one instance), each with its read-write endpoint
      expect(stdout).toMatch(
        /shop\/postgrescluster\/orders +in-cluster +True \w+ +Ready 3\/3 +primary orders-\d, orders-rw\.shop\.svc:5432, PostgreSQL 17/,
      );
      expect(stdout).toMatch(
        /shop\/postgrescluster\/notes +in-cluster +True \w+ +Ready 1\/1 +primary notes-0, notes-rw\.shop\.svc:5432, PostgreSQL 15/,
      );
      expect(stdout).toContain('steward: every example resource is Ready.');
      // every controller's telemetry through the OpenTelemetry Collector into Prometheus
      expect(stdout).toMatch(
        /steward: Prometheus has every controller's metrics through the OpenTelemetry Collector \(steward\/cache-cluster-controller, steward\/database-instance-controller, steward\/kafka-topic-controller, steward\/postgres-cluster-controller\); [1-9]\d* reconcile spans traced/,
      );
      expect(stdout).toContain('steward: stopped cleanly.');
    },
    21 * 60_000,
  );
});
