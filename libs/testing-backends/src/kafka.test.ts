import { describe, expect, it } from 'vitest';
import {
  isPortClash,
  newClusterId,
  parseKafkaLib,
  scramCredential,
  serverProperties,
  validateSaslUser,
  type KafkaSaslUser,
  type ServerPropertiesInput,
} from './kafka.js';

function parse(properties: string): Record<string, string> {
  return Object.fromEntries(
    properties
      .trimEnd()
      .split('\n')
      .map((line) => {
        const at = line.indexOf('=');
        return [line.slice(0, at), line.slice(at + 1)];
      }),
  );
}

const base: ServerPropertiesInput = {
  ports: { plaintext: 9092, controller: 9093 },
  logDir: '/tmp/k/data',
};

describe('serverProperties', () => {
  it('configures one combined broker and controller in KRaft mode on loopback', () => {
    const props = parse(serverProperties(base));
    expect(props).toMatchObject({
      'process.roles': 'broker,controller',
      'node.id': '1',
      'controller.quorum.voters': '1@127.0.0.1:9093',
      listeners: 'PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093',
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:9092',
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
      'controller.listener.names': 'CONTROLLER',
      'inter.broker.listener.name': 'PLAINTEXT',
      'log.dirs': '/tmp/k/data',
    });
  });

  it('sizes internal topics for one node and leaves topic creation to the test', () => {
    const props = parse(serverProperties(base));
    expect(props).toMatchObject({
      'num.partitions': '1',
      'offsets.topic.replication.factor': '1',
      'transaction.state.log.replication.factor': '1',
      'transaction.state.log.min.isr': '1',
      'group.initial.rebalance.delay.ms': '0',
      'auto.create.topics.enable': 'false',
      'log.segment.bytes': '1048576',
    });
  });

  it.each<[KafkaSaslUser['mechanism'], string, string]>([
    [
      'scram-sha-512',
      'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config',
      'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    ],
    [
      'scram-sha-256',
      'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config',
      'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    ],
    [
      'plain',
      'listener.name.sasl_plaintext.plain.sasl.jaas.config',
      'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="s3cret!";',
    ],
  ])('adds a SASL_PLAINTEXT listener offering %s', (mechanism, jaasKey, jaas) => {
    const props = parse(
      serverProperties({
        ...base,
        ports: { ...base.ports, sasl: 9094 },
        saslUser: { mechanism, username: 'alice', password: 's3cret!' },
      }),
    );
    expect(props['listeners']).toBe(
      'PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093,SASL_PLAINTEXT://127.0.0.1:9094',
    );
    expect(props['advertised.listeners']).toBe(
      'PLAINTEXT://127.0.0.1:9092,SASL_PLAINTEXT://127.0.0.1:9094',
    );
    expect(props['listener.security.protocol.map']).toContain('SASL_PLAINTEXT:SASL_PLAINTEXT');
    expect(props['sasl.enabled.mechanisms']).toBe(mechanism.toUpperCase());
    expect(props[jaasKey]).toBe(jaas);
  });

  it('adds an SSL listener with a PEM keystore', () => {
    const props = parse(
      serverProperties({
        ...base,
        ports: { ...base.ports, tls: 9095 },
        tlsKeystoreFile: '/tmp/k/tls/broker-keystore.pem',
      }),
    );
    expect(props['listeners']).toContain('SSL://127.0.0.1:9095');
    expect(props['advertised.listeners']).toBe('PLAINTEXT://127.0.0.1:9092,SSL://127.0.0.1:9095');
    expect(props).toMatchObject({
      'listener.name.ssl.ssl.keystore.type': 'PEM',
      'listener.name.ssl.ssl.keystore.location': '/tmp/k/tls/broker-keystore.pem',
    });
  });

  it('adds a SASL_SSL listener with both SASL and TLS: the same user, the same keystore', () => {
    const props = parse(
      serverProperties({
        ...base,
        ports: { ...base.ports, sasl: 9094, tls: 9095, saslTls: 9096 },
        saslUser: { mechanism: 'scram-sha-512', username: 'alice', password: 's3cret!' },
        tlsKeystoreFile: '/tmp/k/tls/broker-keystore.pem',
      }),
    );
    expect(props['advertised.listeners']).toBe(
      'PLAINTEXT://127.0.0.1:9092,SASL_PLAINTEXT://127.0.0.1:9094,SSL://127.0.0.1:9095,SASL_SSL://127.0.0.1:9096',
    );
    expect(props['listener.security.protocol.map']).toContain('SASL_SSL:SASL_SSL');
    expect(props).toMatchObject({
      'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config':
        'org.apache.kafka.common.security.scram.ScramLoginModule required;',
      'listener.name.sasl_ssl.ssl.keystore.type': 'PEM',
      'listener.name.sasl_ssl.ssl.keystore.location': '/tmp/k/tls/broker-keystore.pem',
    });
  });

  it('binds and advertises the client listeners on `host`, the controller staying on loopback', () => {
    const props = parse(
      serverProperties({
        ...base,
        host: '10.88.77.1',
        ports: { ...base.ports, sasl: 9094, tls: 9095 },
      }),
    );
    expect(props).toMatchObject({
      'controller.quorum.voters': '1@127.0.0.1:9093',
      listeners:
        'PLAINTEXT://10.88.77.1:9092,CONTROLLER://127.0.0.1:9093,SASL_PLAINTEXT://10.88.77.1:9094,SSL://10.88.77.1:9095',
      'advertised.listeners':
        'PLAINTEXT://10.88.77.1:9092,SASL_PLAINTEXT://10.88.77.1:9094,SSL://10.88.77.1:9095',
    });
  });

  it('lets extra properties override defaults but never the listeners or the node id', () => {
    const props = parse(
      serverProperties({
        ...base,
        extra: { 'num.partitions': 3, 'node.id': 7, listeners: 'PLAINTEXT://0.0.0.0:1' },
      }),
    );
    expect(props['num.partitions']).toBe('3');
    expect(props['node.id']).toBe('1');
    expect(props['listeners']).toBe('PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093');
  });

  it('escapes backslashes and line breaks as java.util.Properties reads them', () => {
    const props = parse(serverProperties({ ...base, extra: { 'x.y': 'a\\b\nc' } }));
    expect(props['x.y']).toBe('a\\\\b\\nc');
  });
});

describe('SASL users', () => {
  it('writes the --add-scram argument kafka-storage format reads', () => {
    expect(
      scramCredential({ mechanism: 'scram-sha-512', username: 'alice', password: 'p=w]' }),
    ).toBe('SCRAM-SHA-512=[name=alice,password="p=w]"]');
  });

  it.each<[string, KafkaSaslUser]>([
    ['a comma in the password', { mechanism: 'plain', username: 'a', password: 'x,y' }],
    ['a quote in the password', { mechanism: 'plain', username: 'a', password: 'x"y' }],
    ['a backslash in the password', { mechanism: 'plain', username: 'a', password: 'x\\y' }],
    ['a space in the password', { mechanism: 'plain', username: 'a', password: 'x y' }],
    ['an empty password', { mechanism: 'plain', username: 'a', password: '' }],
    ['a space in the username', { mechanism: 'plain', username: 'a b', password: 'x' }],
    ['an unknown mechanism', { mechanism: 'gssapi' as 'plain', username: 'a', password: 'x' }],
  ])('refuses %s', (_what, user) => {
    expect(() => validateSaslUser(user)).toThrow(TypeError);
  });

  it('accepts the rest of printable ASCII', () => {
    expect(() =>
      validateSaslUser({
        mechanism: 'scram-sha-256',
        username: 'svc.orders-1@shop',
        password: "x!#$%&'()*+-./:;<>?@[]^_`{|}~=09AZaz",
      }),
    ).not.toThrow();
  });
});

describe('newClusterId', () => {
  it('is 16 random bytes in URL-safe base64 without padding, never starting with -', () => {
    const ids = Array.from({ length: 200 }, newClusterId);
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
      expect(Buffer.from(id, 'base64url')).toHaveLength(16);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('install.sh and broker output', () => {
  it('reads the lib directory from install.sh --print-env', () => {
    expect(parseKafkaLib('STEWARD_KAFKA_LIB=/c/kafka-4.1.2/lib\n')).toBe('/c/kafka-4.1.2/lib');
    expect(parseKafkaLib('kafka: 4.1.2 cached at /c\n')).toBeUndefined();
  });

  it('recognises a listener that could not bind its port', () => {
    expect(
      isPortClash(
        'org.apache.kafka.common.KafkaException: Socket server failed to bind to 127.0.0.1:9092: Address already in use.',
      ),
    ).toBe(true);
    expect(isPortClash('[KafkaRaftServer nodeId=1] Kafka Server started')).toBe(false);
  });
});
