import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { type BackupDestination, type BackupRecord } from '@steward/postgres-cluster-api';
import { BackupFiles } from './layout.js';

/** What a database system's folder in the bucket holds. */
export interface Catalogue {
  /** Complete backups (with backup.json), oldest first. */
  backups: BackupRecord[];
  /** Backup ids with objects but no backup.json (an upload that failed, or one still running). */
  incomplete: string[];
  /** File names in wal/ (e.g. 000000010000000000000003.gz, 00000002.history.gz). */
  wal: string[];
}

/** The bucket, as the controller reads and prunes it (the pods write with rclone). */
export interface BackupStore {
  /** The database systems (identifiers) with a folder below `prefix` (no trailing slash). */
  systems(prefix: string, signal?: AbortSignal): Promise<string[]>;
  /** Lists the folder `systemPrefix` (ends with `/`). */
  catalogue(systemPrefix: string, signal?: AbortSignal): Promise<Catalogue>;
  /** Deletes whole backups (every object below base/<id>/) and WAL files. */
  remove(
    systemPrefix: string,
    what: { backups: string[]; wal: string[] },
    signal?: AbortSignal,
  ): Promise<number>;
  close(): void;
}

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * A BackupStore on the S3 API (`@aws-sdk/client-s3`): path-style addressing, and checksums only
 * where the API requires them (S3-compatible stores do not all know the SDK's newer ones).
 * backup.json objects are immutable once written: each is read once and remembered.
 */
export function s3BackupStore(
  destination: BackupDestination,
  credentials: Credentials,
): BackupStore {
  const s3 = new S3Client({
    region: destination.region ?? 'us-east-1',
    ...(destination.endpoint ? { endpoint: destination.endpoint } : {}),
    forcePathStyle: true,
    credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
  const Bucket = destination.bucket;
  const records = new Map<string, BackupRecord>();

  async function keys(prefix: string, signal?: AbortSignal): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken: token }),
        { abortSignal: signal },
      );
      for (const o of page.Contents ?? []) if (o.Key) out.push(o.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  async function record(key: string, signal?: AbortSignal): Promise<BackupRecord> {
    const known = records.get(key);
    if (known) return known;
    const object = await s3.send(new GetObjectCommand({ Bucket, Key: key }), {
      abortSignal: signal,
    });
    const text = (await object.Body?.transformToString('utf8')) ?? '';
    const parsed = JSON.parse(text) as BackupRecord;
    records.set(key, parsed);
    return parsed;
  }

  return {
    async systems(prefix, signal) {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(
          new ListObjectsV2Command({
            Bucket,
            Prefix: `${prefix}/`,
            Delimiter: '/',
            ContinuationToken: token,
          }),
          { abortSignal: signal },
        );
        for (const p of page.CommonPrefixes ?? []) {
          const id = p.Prefix?.slice(prefix.length + 1).replace(/\/$/, '');
          if (id && /^[0-9]+$/.test(id)) out.push(id);
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return out.sort();
    },

    async catalogue(systemPrefix, signal) {
      const base = `${systemPrefix}base/`;
      const ids = new Map<string, boolean>();
      for (const key of await keys(base, signal)) {
        const [id, file] = key.slice(base.length).split('/');
        if (!id || !file) continue;
        ids.set(id, (ids.get(id) ?? false) || file === BackupFiles.record);
      }
      const backups: BackupRecord[] = [];
      const incomplete: string[] = [];
      for (const [id, complete] of [...ids].sort(([a], [b]) => a.localeCompare(b))) {
        if (!complete) {
          incomplete.push(id);
          continue;
        }
        try {
          backups.push(await record(`${base}${id}/${BackupFiles.record}`, signal));
        } catch (error) {
          if (error instanceof SyntaxError) incomplete.push(id);
          else throw error;
        }
      }
      const walPrefix = `${systemPrefix}wal/`;
      const wal = (await keys(walPrefix, signal)).map((k) => k.slice(walPrefix.length));
      return { backups, incomplete, wal };
    },

    async remove(systemPrefix, what, signal) {
      const doomed: string[] = [];
      for (const id of what.backups)
        doomed.push(...(await keys(`${systemPrefix}base/${id}/`, signal)));
      for (const file of what.wal) doomed.push(`${systemPrefix}wal/${file}`);
      for (let i = 0; i < doomed.length; i += 1000) {
        const batch = doomed.slice(i, i + 1000);
        const result = await s3.send(
          new DeleteObjectsCommand({
            Bucket,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
          { abortSignal: signal },
        );
        const errors = result.Errors ?? [];
        if (errors.length)
          throw new Error(
            `deleting ${errors.length} of ${batch.length} objects failed: ${errors
              .slice(0, 3)
              .map((e) => `${e.Key}: ${e.Code} ${e.Message}`)
              .join('; ')}`,
          );
      }
      for (const key of doomed) records.delete(key);
      return doomed.length;
    },

    close() {
      s3.destroy();
    },
  };
}
