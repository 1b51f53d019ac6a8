import { describe, expect, it } from 'vitest';
import { otlpEndpoints } from './index.js';

describe('otlpEndpoints', () => {
  it.each([
    {
      case: 'nothing configured: no OTLP export',
      configured: undefined,
      env: {},
      expected: {},
    },
    {
      case: 'a configured base gets the signal paths, trailing slash or not',
      configured: 'http://collector:4318/',
      env: {},
      expected: {
        traces: 'http://collector:4318/v1/traces',
        metrics: 'http://collector:4318/v1/metrics',
      },
    },
    {
      case: 'a configured base wins over the environment',
      configured: 'http://collector:4318',
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://other:4318/traces',
        OTEL_SDK_DISABLED: 'true',
      },
      expected: {
        traces: 'http://collector:4318/v1/traces',
        metrics: 'http://collector:4318/v1/metrics',
      },
    },
    {
      case: 'OTEL_EXPORTER_OTLP_ENDPOINT gets the signal paths',
      configured: undefined,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example:4318/prefix' },
      expected: {
        traces: 'https://otlp.example:4318/prefix/v1/traces',
        metrics: 'https://otlp.example:4318/prefix/v1/metrics',
      },
    },
    {
      case: 'a signal-specific endpoint is used as is',
      configured: undefined,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/otlp/v1/traces',
      },
      expected: {
        traces: 'http://tempo:4318/otlp/v1/traces',
        metrics: 'http://collector:4318/v1/metrics',
      },
    },
    {
      case: 'only one signal configured',
      configured: undefined,
      env: { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://mimir:4318/otlp/v1/metrics' },
      expected: { metrics: 'http://mimir:4318/otlp/v1/metrics' },
    },
    {
      case: 'OTEL_METRICS_EXPORTER=none turns metrics off',
      configured: undefined,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_METRICS_EXPORTER: 'none' },
      expected: { traces: 'http://collector:4318/v1/traces' },
    },
    {
      case: 'OTEL_SDK_DISABLED=true turns the environment off',
      configured: undefined,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' },
      expected: {},
    },
    {
      case: 'blank values count as unset',
      configured: '  ',
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: '' },
      expected: {},
    },
  ])('$case', ({ configured, env, expected }) => {
    expect(otlpEndpoints(configured, env)).toEqual(expected);
  });
});
