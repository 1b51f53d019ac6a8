import {
  defaultListenHost,
  freePort,
  ManagedProcess,
  mintCertificate,
  mintCertificateAuthority,
  parsePrintEnv,
  repoRoot,
  runPrintEnv,
  type ListenHostOption,
} from '@steward/testing';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Kafka as KafkaClient, logLevel, type Admin, type KafkaConfig } from 'kafkajs';

const run = promisify(execFile);

/** The SASL mechanisms the broker's SASL_PLAINTEXT listener can offer, in kafkajs' spelling. */
export type KafkaSaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512';

/** One user of the SASL listener: a SCRAM credential written at format time, or a PLAIN user. */
export interface KafkaSaslUser {
  readonly mechanism: KafkaSaslMechanism;
  /** Letters, digits and `._@-`. */
  readonly username: string;
  /** Printable ASCII without spaces, commas, `"` or `\` (kafka-storage's `--add-scram` syntax). */
  readonly password: string;
}

export interface KafkaOptions extends ListenHostOption {
  /** Adds a SASL_PLAINTEXT listener (`saslBootstrapServers`) that admits exactly this user. */
  sasl?: KafkaSaslUser;
  /**
   * Adds an SSL listener (`tlsBootstrapServers`) serving a certificate for `host`, 127.0.0.1 and
   * localhost, signed by a throwaway CA (`caPem`). Clients are not asked for certificates. With
   * `sasl` too, a SASL_SSL listener as well (`saslTlsBootstrapServers`): the same user over TLS.
   */
  tls?: boolean;
  /** More `server.properties` lines; they win over the defaults (not over listeners or node id). */
  brokerProperties?: Record<string, string | number | boolean>;
  /** How long to wait for the broker to answer a kafkajs `describeCluster()`. Default 120 s. */
  readyTimeoutMs?: number;
  /** Keep the temporary directory (data, server.properties, log) after the process exits. */
  keepDataDir?: boolean;
}

/** Which listener a client connects to. */
export type KafkaListener = 'plaintext' | 'sasl' | 'tls' | 'sasl-tls';

/**
 * A single-node Apache Kafka broker (KRaft, combined broker and controller) on its `host`, owned by
 * one test suite, with its data in a temporary directory.
 */
export interface Kafka {
  /** `<host>:<port>` of the PLAINTEXT listener. */
  readonly bootstrapServers: string[];
  /** The SASL_PLAINTEXT listener, when started with `sasl`. */
  readonly saslBootstrapServers?: string[];
  /** The SSL listener, when started with `tls`. */
  readonly tlsBootstrapServers?: string[];
  /** The SASL_SSL listener, when started with both `sasl` and `tls`. */
  readonly saslTlsBootstrapServers?: string[];
  /** The PEM of the CA that signed the SSL listener's certificate, when started with `tls`. */
  readonly caPem?: string;
  /** The user the SASL listener admits, when started with `sasl`. */
  readonly sasl?: KafkaSaslUser;
  readonly clusterId: string;
  /** The temporary directory: `server.properties`, `data/`, the log. */
  readonly dataDir: string;
  /** The broker's output (JVM and log4j), appended to across restarts. */
  readonly logFile: string;
  /** The JVM's pid (also its process group id); a new one after `start()`; undefined once stopped. */
  readonly pid: number | undefined;
  readonly running: boolean;
  /**
   * kafkajs settings for one listener: `brokers`, plus `sasl` or `ssl` for those listeners. Spread
   * into `kafka()` or into a controller's own client configuration.
   */
  clientConfig(listener?: KafkaListener): KafkaConfig;
  /**
   * A kafkajs client, by default for the PLAINTEXT listener and silent (`logLevel.NOTHING`: errors
   * arrive as rejections); `config` adds to or overrides that. Producers, consumers and admins
   * made from it are the caller's to disconnect.
   */
  kafka(config?: Partial<KafkaConfig>): KafkaClient;
  /** A connected kafkajs admin on the PLAINTEXT listener; `stop()` disconnects it. */
  admin(): Promise<Admin>;
  /**
   * Disconnects every admin from `admin()`, then stops the broker (SIGTERM: a clean shutdown;
   * SIGKILL after 30 s). The data directory and ports are kept, so `start()` brings the same
   * cluster back; the directory is removed when this process exits. Idempotent.
   */
  stop(): Promise<void>;
  /**
   * Starts the broker again after `stop()` or `kill()`, on the same data directory, ports and
   * cluster id, and resolves when it is ready (about 2 s after `stop()`; about 7 s after `kill()`,
   * once the controller has expired the dead broker's session). A no-op while it runs. Rejects if
   * a port was taken meanwhile, with the log tail.
   */
  start(): Promise<void>;
  /** Kills the broker outright (SIGKILL: an unclean crash); clients are left to notice. */
  kill(): Promise<void>;
  /** Freezes the broker (SIGSTOP): connections stay open but nothing answers, until `resume()`. */
  pause(): void;
  resume(): void;
  /** `stop()`, then removes the data directory (unless `keepDataDir`). */
  [Symbol.asyncDispose](): Promise<void>;
}

/** The broker could not bind one of its ports: start again on others. */
export class KafkaPortInUseError extends Error {}

const maxStartAttempts = 3;
const stopGraceMs = 30_000;
const defaultReadyTimeoutMs = 120_000;

/**
 * Starts an Apache Kafka broker (jars installed on first use by tools/backends/kafka/install.sh
 * into a cache outside the repository) on free ports of `host`, formatted with a fresh cluster id,
 * and returns once a kafkajs admin can describe the cluster. Two suites can run side by side;
 * nothing outlives `stop()`, the test process, or a SIGINT.
 */
export async function startKafka(options: KafkaOptions = {}): Promise<Kafka> {
  if (options.sasl) validateSaslUser(options.sasl);
  const lib = await kafkaLibDir();
  const readyTimeoutMs = options.readyTimeoutMs ?? defaultReadyTimeoutMs;
  const host = options.host ?? defaultListenHost;
  const dataDir = await mkdtemp(join(tmpdir(), 'steward-kafka-'));
  const logFile = join(dataDir, 'kafka.log');
  const propertiesFile = join(dataDir, 'server.properties');
  const clusterId = newClusterId();
  const removeDataDir = (): void => {
    if (!options.keepDataDir) rmSync(dataDir, { recursive: true, force: true, maxRetries: 3 });
  };

  let tls: { keystoreFile: string; caPem: string } | undefined;
  let ports: BrokerPorts | undefined;
  let proc: ManagedProcess | undefined;
  try {
    if (options.tls) tls = await mintBrokerCertificate(join(dataDir, 'tls'), host);
    for (let attempt = 1; ; attempt++) {
      ports = await brokerPorts(
        { sasl: !!options.sasl, tls: !!tls, saslTls: !!options.sasl && !!tls },
        host,
      );
      await rm(join(dataDir, 'data'), { recursive: true, force: true });
      await writeFile(
        propertiesFile,
        serverProperties({
          host,
          ports,
          logDir: join(dataDir, 'data'),
          saslUser: options.sasl,
          tlsKeystoreFile: tls?.keystoreFile,
          extra: options.brokerProperties,
        }),
      );
      await writeFile(join(dataDir, 'log4j2.properties'), log4jProperties);
      await formatStorage(lib, propertiesFile, clusterId, options.sasl, logFile);
      proc = launch(lib, dataDir, logFile);
      try {
        await waitReady(proc, `${host}:${ports.plaintext}`, readyTimeoutMs);
        break;
      } catch (error) {
        await stopProcess(proc);
        if (!(error instanceof KafkaPortInUseError) || attempt >= maxStartAttempts) throw error;
      }
    }
  } catch (error) {
    if (proc?.running) await stopProcess(proc);
    if (!options.keepDataDir) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  removeOnExit(removeDataDir);

  const bound = ports;
  const plaintext = [`${host}:${bound.plaintext}`];
  const sasl = bound.sasl === undefined ? undefined : [`${host}:${bound.sasl}`];
  const tlsServers = bound.tls === undefined ? undefined : [`${host}:${bound.tls}`];
  const saslTls = bound.saslTls === undefined ? undefined : [`${host}:${bound.saslTls}`];
  let current: ManagedProcess = proc;
  let disposed = false;
  let paused = false;
  const admins = new Set<Admin>();

  const clientConfig = (listener: KafkaListener = 'plaintext'): KafkaConfig => {
    switch (listener) {
      case 'plaintext':
        return { brokers: [...plaintext] };
      case 'sasl':
        if (!sasl || !options.sasl) throw new Error('steward: this broker has no SASL listener');
        return {
          brokers: [...sasl],
          // kafkajs types each mechanism separately; the three share this shape.
          sasl: { ...options.sasl } as KafkaConfig['sasl'],
        };
      case 'tls':
        if (!tlsServers || !tls) throw new Error('steward: this broker has no TLS listener');
        return { brokers: [...tlsServers], ssl: { ca: [tls.caPem] } };
      case 'sasl-tls':
        if (!saslTls || !tls || !options.sasl)
          throw new Error('steward: this broker has no SASL_SSL listener');
        return {
          brokers: [...saslTls],
          ssl: { ca: [tls.caPem] },
          sasl: { ...options.sasl } as KafkaConfig['sasl'],
        };
    }
  };
  const kafka = (config: Partial<KafkaConfig> = {}): KafkaClient =>
    new KafkaClient({
      clientId: 'steward-test',
      // kafkajs logs every error response, expected ones too; the caller gets them as rejections.
      logLevel: logLevel.NOTHING,
      ...clientConfig(),
      ...config,
    });

  const unfreeze = (): void => {
    if (paused) current.signal('SIGCONT');
    paused = false;
  };
  const stop = async (): Promise<void> => {
    await Promise.all([...admins].map((admin) => admin.disconnect().catch(() => undefined)));
    admins.clear();
    unfreeze();
    await stopProcess(current);
  };
  const start = async (): Promise<void> => {
    if (disposed) throw new Error('steward: this Kafka broker was disposed');
    if (current.running) return;
    const next = launch(lib, dataDir, logFile);
    current = next;
    try {
      await waitReady(next, plaintext[0]!, readyTimeoutMs);
    } catch (error) {
      await stopProcess(next);
      throw error;
    }
  };
  const dispose = async (): Promise<void> => {
    disposed = true;
    await stop();
    cleanupOnExit.delete(removeDataDir);
    if (!options.keepDataDir) await rm(dataDir, { recursive: true, force: true });
  };

  return {
    bootstrapServers: plaintext,
    ...(sasl ? { saslBootstrapServers: sasl, sasl: options.sasl } : {}),
    ...(tlsServers && tls ? { tlsBootstrapServers: tlsServers, caPem: tls.caPem } : {}),
    ...(saslTls ? { saslTlsBootstrapServers: saslTls } : {}),
    clusterId,
    dataDir,
    logFile,
    get pid() {
      return current.running ? current.pid : undefined;
    },
    get running() {
      return current.running;
    },
    clientConfig,
    kafka,
    admin: async () => {
      const admin = kafka().admin();
      await admin.connect();
      admins.add(admin);
      return admin;
    },
    stop,
    start,
    kill: async () => {
      await killProcess(current);
      paused = false;
    },
    pause: () => {
      if (!current.running) return;
      current.signal('SIGSTOP');
      paused = true;
    },
    resume: unfreeze,
    [Symbol.asyncDispose]: dispose,
  };
}

/**
 * SIGTERM (Kafka shuts down cleanly), SIGKILL after 30 s. Unlike `ManagedProcess.stop()`, whose
 * grace timer keeps the event loop alive for its full length, the timer is cancelled once the
 * broker has exited, so a test process is not held open for 30 s after the last `stop()`.
 */
async function stopProcess(proc: ManagedProcess): Promise<void> {
  if (!proc.running) return;
  proc.signal('SIGTERM');
  if (await exitedWithin(proc, stopGraceMs)) return;
  await killProcess(proc);
}

async function killProcess(proc: ManagedProcess): Promise<void> {
  proc.killNow();
  await exitedWithin(proc, stopGraceMs);
}

/**
 * Waits for `proc` to exit, at most `ms`. The timer also keeps the event loop alive meanwhile:
 * ManagedProcess unrefs its child, so awaiting `exited` alone can let a script end mid-await.
 */
async function exitedWithin(proc: ManagedProcess, ms: number): Promise<boolean> {
  const timer = new AbortController();
  try {
    return await Promise.race([
      proc.exited.then(() => true),
      sleep(ms, false, { signal: timer.signal }),
    ]);
  } finally {
    timer.abort();
  }
}

/** The ports of one broker's listeners, all distinct. */
export interface BrokerPorts {
  plaintext: number;
  /** On 127.0.0.1, whatever the other listeners' host. */
  controller: number;
  sasl?: number;
  tls?: number;
  /** SASL over TLS: with both `sasl` and `tls`. */
  saslTls?: number;
}

async function brokerPorts(
  want: { sasl: boolean; tls: boolean; saslTls?: boolean },
  host: string,
): Promise<BrokerPorts> {
  const taken = new Set<number>();
  const next = async (on = host): Promise<number> => {
    for (;;) {
      const port = await freePort(on);
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  return {
    plaintext: await next(),
    controller: await next(defaultListenHost),
    ...(want.sasl ? { sasl: await next() } : {}),
    ...(want.tls ? { tls: await next() } : {}),
    ...(want.saslTls ? { saslTls: await next() } : {}),
  };
}

export interface ServerPropertiesInput {
  /** The address the client listeners bind to and advertise. Default 127.0.0.1. */
  host?: string | undefined;
  ports: BrokerPorts;
  logDir: string;
  saslUser?: KafkaSaslUser | undefined;
  /** A PEM file holding the SSL listener's private key (PKCS#8) and certificate. */
  tlsKeystoreFile?: string | undefined;
  extra?: Record<string, string | number | boolean> | undefined;
}

/**
 * `server.properties` for a single combined broker+controller: replication factor 1 everywhere,
 * one partition per internal topic, no rebalance delay, no auto-created topics, small segments.
 */
export function serverProperties(input: ServerPropertiesInput): string {
  const { ports, saslUser } = input;
  const host = input.host ?? defaultListenHost;
  // The KRaft controller listener stays on loopback: only this broker (its own voter) talks to it,
  // and it is never advertised to clients.
  const listeners: [name: string, host: string, port: number, protocol: string][] = [
    ['PLAINTEXT', host, ports.plaintext, 'PLAINTEXT'],
    ['CONTROLLER', defaultListenHost, ports.controller, 'PLAINTEXT'],
  ];
  if (ports.sasl !== undefined) {
    listeners.push(['SASL_PLAINTEXT', host, ports.sasl, 'SASL_PLAINTEXT']);
  }
  if (ports.tls !== undefined) listeners.push(['SSL', host, ports.tls, 'SSL']);
  if (ports.saslTls !== undefined) listeners.push(['SASL_SSL', host, ports.saslTls, 'SASL_SSL']);
  const advertised = listeners.filter(([name]) => name !== 'CONTROLLER');
  const endpoints = (of: typeof listeners): string =>
    of.map(([name, at, port]) => `${name}://${at}:${port}`).join(',');

  const defaults: Record<string, string | number | boolean> = {
    'num.partitions': 1,
    'default.replication.factor': 1,
    'min.insync.replicas': 1,
    'offsets.topic.replication.factor': 1,
    'offsets.topic.num.partitions': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'transaction.state.log.num.partitions': 1,
    'share.coordinator.state.topic.replication.factor': 1,
    'share.coordinator.state.topic.min.isr': 1,
    'group.initial.rebalance.delay.ms': 0,
    'auto.create.topics.enable': false,
    'delete.topic.enable': true,
    'log.segment.bytes': 1_048_576,
    'log.retention.check.interval.ms': 60_000,
    // A broker restarted after a crash registers once the controller has expired its previous
    // incarnation's session: 5 s instead of 9 s (heartbeats every 0.5 s instead of 2 s).
    'broker.session.timeout.ms': 5_000,
    'broker.heartbeat.interval.ms': 500,
    'num.network.threads': 2,
    'num.io.threads': 2,
    'num.recovery.threads.per.data.dir': 1,
    'background.threads': 2,
  };
  const fixed: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@${defaultListenHost}:${ports.controller}`,
    listeners: endpoints(listeners),
    'advertised.listeners': endpoints(advertised),
    'listener.security.protocol.map': listeners
      .map(([name, , , protocol]) => `${name}:${protocol}`)
      .join(','),
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'log.dirs': input.logDir,
  };
  if (saslUser) {
    const mechanism = saslUser.mechanism.toUpperCase();
    fixed['sasl.enabled.mechanisms'] = mechanism;
    const jaas =
      saslUser.mechanism === 'plain'
        ? `org.apache.kafka.common.security.plain.PlainLoginModule required user_${saslUser.username}="${saslUser.password}";`
        : 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
    fixed[`listener.name.sasl_plaintext.${saslUser.mechanism}.sasl.jaas.config`] = jaas;
    if (ports.saslTls !== undefined)
      fixed[`listener.name.sasl_ssl.${saslUser.mechanism}.sasl.jaas.config`] = jaas;
  }
  if (input.tlsKeystoreFile) {
    for (const listener of ports.saslTls !== undefined ? ['ssl', 'sasl_ssl'] : ['ssl']) {
      fixed[`listener.name.${listener}.ssl.keystore.type`] = 'PEM';
      fixed[`listener.name.${listener}.ssl.keystore.location`] = input.tlsKeystoreFile;
      fixed[`listener.name.${listener}.ssl.client.auth`] = 'none';
    }
  }
  const all = { ...defaults, ...input.extra, ...fixed };
  return (
    Object.entries(all)
      .map(([key, value]) => `${key}=${escapePropertyValue(String(value))}`)
      .join('\n') + '\n'
  );
}

/** java.util.Properties escaping for a value: backslashes, and line breaks. */
function escapePropertyValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** log4j2 configuration: everything to stdout (the log file), without the config dumps. */
const log4jProperties = `status = warn
shutdownHook = disable
appender.stdout.type = Console
appender.stdout.name = STDOUT
appender.stdout.layout.type = PatternLayout
appender.stdout.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
logger.config.name = org.apache.kafka.common.config.AbstractConfig
logger.config.level = WARN
logger.appinfo.name = org.apache.kafka.common.utils.AppInfoParser
logger.appinfo.level = WARN
logger.request.name = kafka.request.logger
logger.request.level = WARN
`;

/** The `--add-scram` argument of `kafka-storage format` for a SCRAM user. */
export function scramCredential(user: KafkaSaslUser): string {
  return `${user.mechanism.toUpperCase()}=[name=${user.username},password="${user.password}"]`;
}

/** Throws a TypeError for a user the broker's config syntax (JAAS, `--add-scram`) cannot carry. */
export function validateSaslUser(user: KafkaSaslUser): void {
  if (!['plain', 'scram-sha-256', 'scram-sha-512'].includes(user.mechanism)) {
    throw new TypeError(`steward: unsupported SASL mechanism ${String(user.mechanism)}`);
  }
  if (!/^[A-Za-z0-9._@-]+$/.test(user.username)) {
    throw new TypeError('steward: a Kafka SASL username may hold only letters, digits and ._@-');
  }
  if (!/^[\x21\x23-\x2b\x2d-\x5b\x5d-\x7e]+$/.test(user.password)) {
    throw new TypeError(
      'steward: a Kafka SASL password must be printable ASCII without spaces, commas, " or \\',
    );
  }
}

/**
 * A cluster id as Kafka's `Uuid.toString()` writes it: 16 random bytes, URL-safe base64 without
 * padding. Like `Uuid.randomUuid()`, never one starting with `-` (command lines read it as a flag).
 */
export function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

async function formatStorage(
  lib: string,
  propertiesFile: string,
  clusterId: string,
  saslUser: KafkaSaslUser | undefined,
  logFile: string,
): Promise<void> {
  const args = [
    ...jvmFlags,
    '-Xmx256m',
    '-cp',
    `${lib}/*`,
    'kafka.tools.StorageTool',
    'format',
    '--config',
    propertiesFile,
    '--cluster-id',
    clusterId,
  ];
  if (saslUser && saslUser.mechanism !== 'plain')
    args.push('--add-scram', scramCredential(saslUser));
  try {
    const { stdout, stderr } = await run(javaBinary(), args, { timeout: 120_000 });
    await writeFile(logFile, `=== kafka-storage format\n${stdout}${stderr}`, { flag: 'a' });
  } catch (error) {
    const output = error as { stdout?: string; stderr?: string };
    throw new Error(
      `steward: kafka-storage format failed:\n${output.stdout ?? ''}${output.stderr ?? ''}`,
      { cause: error },
    );
  }
}

/** A small test broker: a capped heap, the serial collector, C1 only (faster start on 2 cores). */
const jvmFlags = [
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-XX:+ExitOnOutOfMemoryError',
  '-Djava.awt.headless=true',
];

function launch(lib: string, dataDir: string, logFile: string): ManagedProcess {
  return ManagedProcess.start(
    'kafka',
    javaBinary(),
    [
      ...jvmFlags,
      '-Xms64m',
      '-Xmx512m',
      `-Dlog4j2.configurationFile=${join(dataDir, 'log4j2.properties')}`,
      `-Dkafka.logs.dir=${dataDir}`,
      '-cp',
      `${lib}/*`,
      'kafka.Kafka',
      join(dataDir, 'server.properties'),
    ],
    logFile,
    { cwd: dataDir },
  );
}

function javaBinary(): string {
  const home = process.env['JAVA_HOME'];
  return home ? join(home, 'bin', 'java') : 'java';
}

/** Whether the broker's log says one of its listeners could not bind its port. */
export function isPortClash(log: string): boolean {
  return /Address already in use|failed to bind/i.test(log);
}

async function waitReady(proc: ManagedProcess, broker: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const client = new KafkaClient({
    clientId: 'steward-ready-probe',
    brokers: [broker],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2_000,
    requestTimeout: 5_000,
    retry: { retries: 0 },
  });
  for (;;) {
    if (!proc.running) {
      const tail = proc.logTail(40);
      const message = `steward: the Kafka broker exited during start-up; log ${proc.logFile}:\n${tail}`;
      throw isPortClash(tail) ? new KafkaPortInUseError(message) : new Error(message);
    }
    const admin = client.admin();
    const ready = await admin
      .connect()
      .then(() => admin.describeCluster())
      .then((cluster) => cluster.brokers.length > 0)
      .catch(() => false)
      .finally(() => admin.disconnect().catch(() => undefined));
    if (ready && proc.running) return;
    if (Date.now() > deadline) {
      throw new Error(
        `steward: the Kafka broker did not answer describeCluster on ${broker} after ${timeoutMs} ms; log ${proc.logFile}:\n${proc.logTail(40)}`,
      );
    }
    await sleep(250);
  }
}

async function mintBrokerCertificate(
  dir: string,
  host: string,
): Promise<{ keystoreFile: string; caPem: string }> {
  await mkdir(dir, { recursive: true });
  const ca = await mintCertificateAuthority(dir);
  const serving = await mintCertificate(ca, {
    name: 'broker',
    commonName: 'steward-kafka',
    subjectAltNames: [...new Set([`IP:${host}`, 'IP:127.0.0.1', 'DNS:localhost'])],
  });
  // Kafka's PEM keystore: the private key (PKCS#8, as openssl 3 writes it) then the chain.
  const keystoreFile = join(dir, 'broker-keystore.pem');
  const [key, cert, caPem] = await Promise.all([
    readFile(serving.keyFile, 'utf8'),
    readFile(serving.certFile, 'utf8'),
    readFile(ca.certFile, 'utf8'),
  ]);
  await writeFile(keystoreFile, `${key.trimEnd()}\n${cert.trimEnd()}\n`);
  return { keystoreFile, caPem };
}

/** Data directories to remove when this process exits; `dispose()` takes its own out. */
const cleanupOnExit = new Set<() => void>();
let exitHookInstalled = false;

/**
 * Registers `cleanup` for this process's exit. The hook is installed after the first broker was
 * launched, so it runs after ManagedProcess's own exit hook has killed the brokers.
 */
function removeOnExit(cleanup: () => void): void {
  cleanupOnExit.add(cleanup);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const each of cleanupOnExit) {
      try {
        each();
      } catch {
        // a broker killed a moment ago may still hold files: best effort
      }
    }
  });
}

/** The lib directory in a `STEWARD_KAFKA_LIB=dir` line of install.sh's `--print-env` output. */
export function parseKafkaLib(output: string): string | undefined {
  return parsePrintEnv(output)['STEWARD_KAFKA_LIB'];
}

let pending: Promise<string> | undefined;

/**
 * The directory of Kafka's jars, installed on first use by `tools/backends/kafka/install.sh`
 * (instant when cached, tens of seconds cold, progress on stderr). `STEWARD_KAFKA_LIB` wins.
 */
export function kafkaLibDir(): Promise<string> {
  pending ??= resolveLib().catch((error: unknown) => {
    pending = undefined;
    throw error;
  });
  return pending;
}

async function resolveLib(): Promise<string> {
  const fromEnv = process.env['STEWARD_KAFKA_LIB'];
  if (fromEnv) return fromEnv;
  const script = join(repoRoot(), 'tools', 'backends', 'kafka', 'install.sh');
  const lib = (await runPrintEnv(script))['STEWARD_KAFKA_LIB'];
  if (!lib) throw new Error(`steward: ${script} --print-env did not print STEWARD_KAFKA_LIB`);
  return lib;
}
