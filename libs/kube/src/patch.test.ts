import { describe, expect, it } from 'vitest';
import { jsonPointer } from './patch.js';

describe('jsonPointer', () => {
  it.each([
    [['metadata', 'finalizers', 0], '/metadata/finalizers/0'],
    [
      ['metadata', 'annotations', 'steward.dev/paused'],
      '/metadata/annotations/steward.dev~1paused',
    ],
    [['a~b', 'c/d~e'], '/a~0b/c~1d~0e'],
    [[], ''],
  ])('%j → %s', (segments, pointer) => {
    expect(jsonPointer(...segments)).toBe(pointer);
  });
});
