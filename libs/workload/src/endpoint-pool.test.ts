import { afterEach, describe, expect, it, vi } from 'vitest';
import { EndpointPool, type EndpointEntry } from './endpoint-pool.js';

interface Entry extends EndpointEntry {
  readonly password: string;
}

function pool(idleTimeoutMs = 60_000) {
  const released: Entry[] = [];
  const endpoints = new EndpointPool<Entry>({
    idleTimeoutMs,
    release: (entry) => released.push(entry),
  });
  const entry = (address: string, password: string) =>
    endpoints.entry(address, password, (key, now) => ({ key, address, password, lastUsed: now }));
  return { endpoints, entry, released };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('EndpointPool', () => {
  it('keeps one entry per address and password, and reuses it', () => {
    const { endpoints, entry, released } = pool();
    const a = entry('10.0.0.1:5432', 'one');
    const b = entry('10.0.0.2:5432', 'one');
    expect(entry('10.0.0.1:5432', 'one')).toBe(a);
    expect(b).not.toBe(a);
    expect(endpoints.all()).toEqual([a, b]);
    expect(released).toEqual([]);
  });

  it('keys an entry by its address and a hash that does not reveal the password', () => {
    const { entry } = pool();
    const a = entry('10.0.0.1:5432', 's3cret-password');
    expect(a.key).toMatch(/^10\.0\.0\.1:5432#[0-9a-f]{16}$/);
    expect(a.key).not.toContain('s3cret');
  });

  it('replaces the entry of an address when the password changes, releasing the old one', () => {
    const { endpoints, entry, released } = pool();
    const old = entry('10.0.0.1:5432', 'one');
    const other = entry('10.0.0.2:5432', 'one');
    const fresh = entry('10.0.0.1:5432', 'two');
    expect(fresh).not.toBe(old);
    expect(released).toEqual([old]);
    expect(endpoints.holds(old)).toBe(false);
    expect(endpoints.all()).toEqual([other, fresh]);
  });

  it('drops the entries idle for longer than idleTimeoutMs at the next request', () => {
    vi.useFakeTimers({ now: 0 });
    const { endpoints, entry, released } = pool(1000);
    const idle = entry('10.0.0.1:5432', 'one');
    const busy = entry('10.0.0.2:5432', 'one');
    vi.setSystemTime(600);
    entry('10.0.0.2:5432', 'one');
    vi.setSystemTime(1000);
    entry('10.0.0.2:5432', 'one');
    expect(released).toEqual([]);
    vi.setSystemTime(1001);
    expect(entry('10.0.0.2:5432', 'one')).toBe(busy);
    expect(released).toEqual([idle]);
    expect(endpoints.all()).toEqual([busy]);
  });

  it('drops an entry it no longer holds by releasing it only', () => {
    const { endpoints, entry, released } = pool();
    const old = entry('10.0.0.1:5432', 'one');
    const fresh = entry('10.0.0.1:5432', 'two');
    endpoints.drop(old);
    expect(released).toEqual([old, old]);
    expect(endpoints.all()).toEqual([fresh]);
  });

  it('drops every entry on dropAll', () => {
    const { endpoints, entry, released } = pool();
    const a = entry('10.0.0.1:5432', 'one');
    const b = entry('10.0.0.2:5432', 'one');
    endpoints.dropAll();
    expect(released).toEqual([a, b]);
    expect(endpoints.all()).toEqual([]);
  });

  it('resolves ended() once every tracked connection end has', async () => {
    const { endpoints } = pool();
    await endpoints.ended();
    let finish!: () => void;
    endpoints.track(new Promise<void>((resolve) => (finish = resolve)));
    let over = false;
    const ended = endpoints.ended().then(() => (over = true));
    await Promise.resolve();
    expect(over).toBe(false);
    finish();
    await ended;
    expect(over).toBe(true);
  });
});
