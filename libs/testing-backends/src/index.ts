/**
 * @steward/testing-backends — the real backends Steward's controllers talk to, as plain processes on
 * free ports: an Apache Kafka broker (KRaft), moto (the AWS RDS and S3 APIs), and the observability
 * pipeline (the OpenTelemetry Collector into Prometheus). Each is installed by its script under
 * tools/ on first use and stopped with the test process; `host` makes one listen where the node
 * tier's pods reach it.
 *
 * Tests and tools only (Nx tag `type:testing`); built on @steward/testing.
 */
export {
  startKafka,
  kafkaLibDir,
  type Kafka,
  type KafkaListener,
  type KafkaOptions,
  type KafkaSaslUser,
} from './kafka.js';
export { startMoto, type Moto } from './moto.js';
export {
  startOtelCollector,
  otelCollectorBinary,
  type CollectedSpan,
  type OtelCollector,
} from './otel-collector.js';
export {
  startPrometheus,
  prometheusBinaries,
  type Prometheus,
  type PromSeries,
  type ScrapeJob,
  type ScrapeTarget,
} from './prometheus.js';
