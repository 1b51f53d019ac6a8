import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  controllerLogger,
  createLogger,
  createTelemetry,
  type Logger,
  reconcileLogger,
  REDACTED,
  type Telemetry,
  withChildSpan,
  withReconcileSpan,
} from './index.js';

type Line = Record<string, unknown>;

/** A logger whose lines land, parsed, in `lines`. */
function capturingLogger(extra: { redactKeys?: string[] } = {}): {
  logger: Logger;
  lines: Line[];
} {
  const lines: Line[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Line) },
    ...extra,
  });
  return { logger, lines };
}

describe('log lines and the active span', () => {
  let telemetry: Telemetry;

  beforeEach(() => {
    telemetry = createTelemetry({
      serviceName: 'widget-controller',
      registerGlobal: false,
      log: { level: 'silent' },
    });
  });

  afterEach(() => telemetry.shutdown());

  it('carry trace_id and span_id of the span active when they are written', async () => {
    const { logger, lines } = capturingLogger();
    const ids: { trace: string; span: string }[] = [];
    await withReconcileSpan(
      telemetry.tracer,
      { controller: 'widget', kind: 'Widget', namespace: 'shop', name: 'blue' },
      async (reconcile) => {
        await sleep(1);
        logger.info('reconciling');
        ids.push({ trace: reconcile.spanContext().traceId, span: reconcile.spanContext().spanId });
        await withChildSpan(telemetry.tracer, 'GET widgets', {}, async (child) => {
          await sleep(1);
          logger.debug('fetched');
          ids.push({ trace: child.spanContext().traceId, span: child.spanContext().spanId });
        });
      },
    );
    logger.info('idle');

    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ msg: 'reconciling', trace_id: ids[0]!.trace });
    expect(lines[0]!['span_id']).toBe(ids[0]!.span);
    expect(lines[0]!['trace_flags']).toBe('01');
    expect(lines[1]).toMatchObject({ msg: 'fetched', trace_id: ids[1]!.trace });
    expect(lines[1]!['span_id']).toBe(ids[1]!.span);
    expect(ids[1]!.trace).toBe(ids[0]!.trace);
    expect(ids[1]!.span).not.toBe(ids[0]!.span);
    expect(lines[2]).not.toHaveProperty('trace_id');
    expect(lines[2]).not.toHaveProperty('span_id');
  });

  it("also carry them through the telemetry's own logger", async () => {
    const lines: Line[] = [];
    const own = createTelemetry({
      serviceName: 'widget-controller',
      registerGlobal: false,
      log: { destination: { write: (line: string) => void lines.push(JSON.parse(line) as Line) } },
    });
    let traceId = '';
    await withReconcileSpan(
      own.tracer,
      { controller: 'widget', kind: 'Widget', name: 'blue' },
      async (span) => {
        traceId = span.spanContext().traceId;
        own.logger.info('inside');
      },
    );
    await own.shutdown();
    expect(lines.find((line) => line['msg'] === 'inside')?.['trace_id']).toBe(traceId);
  });
});

describe('log lines', () => {
  it('are JSON with a level name and an ISO time', () => {
    const { logger, lines } = capturingLogger();
    logger.warn({ replicas: 3 }, 'scaled');
    expect(lines[0]).toMatchObject({ level: 'warn', msg: 'scaled', replicas: 3 });
    expect(new Date(lines[0]!['time'] as string).toISOString()).toBe(lines[0]!['time']);
  });

  it('carry the controller and the reconciled object through child loggers', () => {
    const { logger, lines } = capturingLogger();
    controllerLogger(logger, 'widget').info('started');
    reconcileLogger(logger, {
      controller: 'widget',
      kind: 'Widget',
      namespace: 'shop',
      name: 'blue',
    }).info('reconciled');
    reconcileLogger(logger, { controller: 'profile', kind: 'ProviderProfile', name: 'aws' }).info(
      'cluster-scoped',
    );
    expect(lines[0]).toMatchObject({ controller: 'widget', msg: 'started' });
    expect(lines[1]).toMatchObject({
      controller: 'widget',
      kind: 'Widget',
      namespace: 'shop',
      name: 'blue',
      msg: 'reconciled',
    });
    expect(lines[2]).toMatchObject({ controller: 'profile', kind: 'ProviderProfile', name: 'aws' });
    expect(lines[2]).not.toHaveProperty('namespace');
  });
});

describe('secrets in log lines', () => {
  it('are redacted at any depth, whatever the key case, keeping everything else', () => {
    const { logger, lines } = capturingLogger();
    logger.info(
      {
        password: 'hunter2',
        profile: {
          secretRef: { name: 'aws-credentials' },
          aws: {
            region: 'eu-west-1',
            secretAccessKey: 'AKIA-SECRET',
            sessionToken: 'FQoGZXIvYXdzE',
          },
        },
        request: {
          method: 'GET',
          headers: { Authorization: 'Bearer eyJhbGci', 'X-Api-Key': 'k-123', accept: 'json' },
        },
        kafka: { sasl: { mechanism: 'scram-sha-512', username: 'app', password: 'pw' } },
        users: [{ name: 'a', token: 't-a' }],
      },
      'connecting',
    );
    const line = JSON.stringify(lines[0]);
    for (const secret of [
      'hunter2',
      'AKIA-SECRET',
      'FQoGZXIvYXdzE',
      'eyJhbGci',
      'k-123',
      '"pw"',
      't-a',
    ]) {
      expect(line).not.toContain(secret);
    }
    expect(lines[0]).toMatchObject({
      password: REDACTED,
      profile: {
        secretRef: { name: 'aws-credentials' },
        aws: { region: 'eu-west-1', secretAccessKey: REDACTED, sessionToken: REDACTED },
      },
      request: { method: 'GET', headers: { Authorization: REDACTED, 'X-Api-Key': REDACTED } },
      kafka: { sasl: { mechanism: 'scram-sha-512', username: 'app', password: REDACTED } },
      users: [{ name: 'a', token: REDACTED }],
    });
  });

  it("redact a Secret's data and stringData wherever the Secret appears", () => {
    const { logger, lines } = capturingLogger();
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'pg-credentials', namespace: 'shop' },
      type: 'Opaque',
      data: { password: 'c3VwZXJzZWNyZXQ=' },
      stringData: { username: 'postgres', password: 'supersecret' },
    };
    const configMap = { kind: 'ConfigMap', metadata: { name: 'pg' }, data: { port: '5432' } };
    logger.info({ created: secret, list: { items: [configMap, secret] } }, 'applied');
    const line = JSON.stringify(lines[0]);
    expect(line).not.toContain('c3VwZXJzZWNyZXQ=');
    expect(line).not.toContain('supersecret');
    expect(lines[0]).toMatchObject({
      created: { kind: 'Secret', metadata: { name: 'pg-credentials' }, data: REDACTED },
      list: { items: [{ data: { port: '5432' } }, { data: REDACTED, stringData: REDACTED }] },
    });
  });

  it('never modify the objects that were logged', () => {
    const { logger } = capturingLogger();
    const logged = { auth: { password: 'hunter2' }, secret: { kind: 'Secret', data: { a: 'b' } } };
    const before = structuredClone(logged);
    logger.info(logged, 'x');
    expect(logged).toEqual(before);
  });

  it('are redacted in errors, keeping the error message, stack and cause', () => {
    const { logger, lines } = capturingLogger();
    const cause = new Error('socket hang up');
    const err = Object.assign(new Error('401 from API server', { cause }), {
      request: { headers: { authorization: 'Bearer eyJhbGci' } },
    });
    logger.error({ err }, 'request failed');
    expect(JSON.stringify(lines[0])).not.toContain('eyJhbGci');
    // The redacted copy is what gets serialized: pino writes its cause into message and stack.
    expect(lines[0]).toMatchObject({
      err: {
        type: 'Error',
        message: '401 from API server: socket hang up',
        request: { headers: { authorization: REDACTED } },
      },
    });
    const stack = (lines[0]!['err'] as Line)['stack'];
    expect(stack).toContain('Error: 401 from API server');
    expect(stack).toContain('caused by: Error: socket hang up');
  });

  it('are redacted in child logger bindings and under extra configured keys', () => {
    const { logger, lines } = capturingLogger({ redactKeys: ['dsn'] });
    const child = logger.child({ db: { dsn: 'postgres://app:pw@db/app', password: 'pw2' } });
    child.info('bound');
    child.child({ token: 'tk-9' }).info('grandchild');
    expect(JSON.stringify(lines)).not.toMatch(/pw|tk-9/);
    expect(lines[0]).toMatchObject({ db: { dsn: REDACTED, password: REDACTED } });
    expect(lines[1]).toMatchObject({ db: { dsn: REDACTED }, token: REDACTED });
  });
});
