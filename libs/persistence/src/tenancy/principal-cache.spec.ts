import type { ApiKeyPrincipal } from './api-key-lookup';
import { PrincipalCache } from './principal-cache';

const principal = (apiKeyId = 'key-1'): ApiKeyPrincipal => ({
  apiKeyId,
  projectId: 'project-1',
  orgId: 'org-1',
  plan: 'free',
  rateLimitPerSecond: null,
});

/** A cache on a clock the test moves, listening unless told otherwise. */
function cacheAt(ttlMs = 1_000, listening = true) {
  const clock = { now: 0 };
  const cache = new PrincipalCache(ttlMs, () => clock.now);
  if (listening) cache.setListening(true);
  return { cache, clock };
}

describe(PrincipalCache.name, () => {
  it('serves a resolved key until its time to live is over, then asks again', () => {
    const { cache, clock } = cacheAt(1_000);
    cache.set(cache.ticket(), 'hash-1', principal());
    clock.now = 999;
    expect(cache.get('hash-1')).toEqual(principal());
    clock.now = 1_000;
    expect(cache.get('hash-1')).toBeUndefined();
  });

  it('keeps nothing before the listener is connected', () => {
    const { cache } = cacheAt(1_000, false);
    cache.set(cache.ticket(), 'hash-1', principal());
    expect(cache.get('hash-1')).toBeUndefined();
  });

  it('drops every entry when a change is notified', () => {
    const { cache } = cacheAt();
    cache.set(cache.ticket(), 'hash-1', principal('key-1'));
    cache.set(cache.ticket(), 'hash-2', principal('key-2'));
    cache.invalidate();
    expect(cache.get('hash-1')).toBeUndefined();
    expect(cache.get('hash-2')).toBeUndefined();
  });

  it('does not keep an answer read before a change was notified', () => {
    const { cache } = cacheAt();
    const ticket = cache.ticket();
    cache.invalidate();
    cache.set(ticket, 'hash-1', principal());
    expect(cache.get('hash-1')).toBeUndefined();
  });

  it('drops every entry and serves nothing once the listener is disconnected', () => {
    const { cache } = cacheAt();
    cache.set(cache.ticket(), 'hash-1', principal());
    cache.setListening(false);
    expect(cache.get('hash-1')).toBeUndefined();
    cache.set(cache.ticket(), 'hash-1', principal());
    expect(cache.get('hash-1')).toBeUndefined();
  });

  it('does not keep an answer read while the listener was away, even once it is back', () => {
    const { cache } = cacheAt();
    cache.setListening(false);
    const ticket = cache.ticket();
    cache.setListening(true);
    cache.set(ticket, 'hash-1', principal());
    expect(cache.get('hash-1')).toBeUndefined();
  });

  it('caches again after reconnecting', () => {
    const { cache } = cacheAt();
    cache.setListening(false);
    cache.setListening(true);
    cache.set(cache.ticket(), 'hash-1', principal());
    expect(cache.get('hash-1')).toEqual(principal());
  });

  it('remembers a key that resolved to nothing for a while, listening or not', () => {
    const clock = { now: 0 };
    const cache = new PrincipalCache(1_000, () => clock.now, 5_000);
    expect(cache.isUnknown('hash-1')).toBe(false);
    cache.setUnknown('hash-1');
    cache.invalidate();
    clock.now = 4_999;
    expect(cache.isUnknown('hash-1')).toBe(true);
    clock.now = 5_000;
    expect(cache.isUnknown('hash-1')).toBe(false);
  });

  it('remembers at most so many unknown keys, making room from the expired ones first', () => {
    const clock = { now: 0 };
    const cache = new PrincipalCache(1_000, () => clock.now, 5_000, 2);
    cache.setUnknown('a');
    cache.setUnknown('b');
    cache.setUnknown('c');
    expect(['a', 'b', 'c'].map((h) => cache.isUnknown(h))).toEqual([true, true, false]);
    clock.now = 5_000;
    cache.setUnknown('c');
    expect(cache.isUnknown('c')).toBe(true);
  });
});
