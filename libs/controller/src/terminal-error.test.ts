import { describe, expect, it } from 'vitest';
import { isTerminalError, terminalCause, TerminalError } from './terminal-error.js';

describe('terminalCause', () => {
  it('finds a TerminalError itself or wrapped in causes, and nothing in ordinary errors', () => {
    const terminal = new TerminalError('InvalidSpec', 'spec.size must be positive');
    const wrapped = new Error('cleanup failed', { cause: new Error('inner', { cause: terminal }) });
    expect(terminalCause(terminal)).toBe(terminal);
    expect(terminalCause(wrapped)).toBe(terminal);
    expect(terminalCause(new Error('transient'))).toBeUndefined();
    expect(terminalCause(undefined)).toBeUndefined();
    expect(isTerminalError(wrapped)).toBe(false);
    expect(terminal.reason).toBe('InvalidSpec');
  });

  it('survives a cause cycle', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(terminalCause(a)).toBeUndefined();
  });
});
