import { describe, expect, it } from 'vitest';
import { maxNoteBytes, truncate, truncateNote } from './note.js';

describe('truncateNote', () => {
  it('keeps a message within the limit unchanged', () => {
    const message = 'x'.repeat(maxNoteBytes);
    expect(truncateNote(message)).toBe(message);
  });

  it('cuts a long ASCII message to exactly 1024 characters', () => {
    const cut = truncateNote('a'.repeat(5000));
    expect(cut).toHaveLength(1024);
  });

  it('never exceeds 1024 bytes of UTF-8 and never splits a character', () => {
    const cut = truncateNote('é'.repeat(600) + '🙂'.repeat(300));
    expect(Buffer.byteLength(cut, 'utf8')).toBeLessThanOrEqual(1024);
    expect(cut).toBe(Buffer.from(cut, 'utf8').toString('utf8'));
    expect(cut.endsWith('\uFFFD')).toBe(false);
    const emoji = truncateNote('a' + '🙂'.repeat(300));
    expect(emoji.length % 2).toBe(1);
    expect(Buffer.byteLength(emoji, 'utf8')).toBe(1 + 4 * 255);
  });
});

describe('truncate', () => {
  it('cuts to the limit', () => {
    expect(truncate('abcdef', 3)).toBe('abc');
    expect(truncate('ab', 3)).toBe('ab');
  });
});
