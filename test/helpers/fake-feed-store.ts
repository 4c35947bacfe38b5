/**
 * A store for change-feed tests (src/modules/live/change-feed.ts): one merchant `m1` with one key `k1`, a data
 * version the test moves with `change`, and the key's revocation with `revoke`; both call the feed's listener.
 */
export function fakeFeedStore() {
  let version = 'v1';
  let revoked = false;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const l of listeners) l();
  };
  return {
    store: {
      catalog: {
        findActiveKey: (keyId: string) => (keyId === 'k1' && !revoked ? { keyId, mode: 'test', merchantId: 'm1', merchantKyc: 'approved' } : undefined),
        merchantVersion: () => version,
      },
      onChange: (listener: () => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      version: () => version,
    },
    change(next: string) {
      version = next;
      notify();
    },
    revoke() {
      revoked = true;
      notify();
    },
  };
}

/** The principal of key `k1` of {@link fakeFeedStore}. */
export const FAKE_FEED_PRINCIPAL = { apiKeyId: 'k1', mode: 'test' as const, merchantId: 'm1', merchantKyc: 'approved' as const };
