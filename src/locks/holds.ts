// This process's holds, counted in one place (Curator's LockData): a nested acquire by the owner
// that already holds the lock only counts up, and the last release is the one that really frees it.

/** Read and write holds of a read-write lock are counted apart; a plain mutex holds 'exclusive'. */
export type HoldMode = 'exclusive' | 'read' | 'write';

export interface HoldKey {
  resource: string;
  owner: string;
  mode?: HoldMode;
}

interface Entry<T> {
  count: number;
  data: T;
}

/** Counts holds per (resource, owner, mode); the first hold of a key carries what its holds share. */
export class HoldCounter<T> {
  private readonly entries = new Map<string, Entry<T>>();

  /** Open holds of `key` in this process. */
  count(key: HoldKey): number {
    return this.entries.get(id(key))?.count ?? 0;
  }

  /** What the holds of `key` share, while it has any. */
  shared(key: HoldKey): T | undefined {
    return this.entries.get(id(key))?.data;
  }

  /** One more hold of `key`; `first` makes the shared data when it is the first. Returns the shared data. */
  enter(key: HoldKey, first: () => T): T {
    const k = id(key);
    let entry = this.entries.get(k);
    if (!entry) {
      entry = { count: 0, data: first() };
      this.entries.set(k, entry);
    }
    entry.count++;
    return entry.data;
  }

  /**
   * One hold fewer of `key`, if its shared data still is `data` (a later first hold has data of its
   * own). Returns the holds left; at 0 the key is forgotten. -1 when there was no such hold.
   */
  leave(key: HoldKey, data: T): number {
    const k = id(key);
    const entry = this.entries.get(k);
    if (!entry || entry.data !== data) return -1;
    entry.count--;
    if (entry.count === 0) this.entries.delete(k);
    return entry.count;
  }
}

function id({ resource, owner, mode = 'exclusive' }: HoldKey): string {
  return `${mode}\u0000${resource}\u0000${owner}`;
}
