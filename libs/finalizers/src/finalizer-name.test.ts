import { describe, expect, it } from 'vitest';
import { assertFinalizerName } from './finalizer-name.js';

describe('assertFinalizerName', () => {
  it.each(['postgres.steward.dev/cleanup', 'example.com/a_b.c-d', 'x/y'])('accepts %s', (name) => {
    expect(() => assertFinalizerName(name)).not.toThrow();
  });

  it.each([
    'cleanup',
    '/cleanup',
    'Steward.dev/cleanup',
    'steward.dev/',
    'steward.dev/-x',
    'a/b/c',
  ])('rejects %s', (name) => {
    expect(() => assertFinalizerName(name)).toThrow(TypeError);
  });
});
