import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { StringEnum } from './schema-helpers.js';
import { toStructural } from './structural.js';

describe('toStructural', () => {
  it('keeps a TypeBox object as the API server expects it', () => {
    const schema = Type.Object({
      size: Type.Integer({ minimum: 1 }),
      name: Type.Optional(Type.String()),
    });
    expect(toStructural(schema)).toEqual({
      type: 'object',
      required: ['size'],
      properties: { size: { type: 'integer', minimum: 1 }, name: { type: 'string' } },
    });
  });

  it('turns literal unions and consts into enums, and drops additionalProperties: false', () => {
    const schema = Type.Object(
      {
        mode: Type.Union([Type.Literal('Standalone'), Type.Literal('Replicated')]),
        fixed: Type.Literal('x'),
        e: StringEnum(['a', 'b']),
      },
      { additionalProperties: false },
    );
    expect(toStructural(schema)).toEqual({
      type: 'object',
      required: ['mode', 'fixed', 'e'],
      properties: {
        mode: { type: 'string', enum: ['Standalone', 'Replicated'] },
        fixed: { type: 'string', enum: ['x'] },
        e: { type: 'string', enum: ['a', 'b'] },
      },
    });
  });

  it.each([
    ['a node without a type', Type.Object({ any: Type.Unknown() }), /\.any has no type/],
    [
      'properties next to additionalProperties',
      {
        type: 'object',
        properties: { a: { type: 'string' } },
        additionalProperties: { type: 'string' },
      },
      /both properties and additionalProperties/,
    ],
  ])('refuses %s, naming the path', (_case, schema, message) => {
    expect(() => toStructural(schema)).toThrow(message);
  });
});
