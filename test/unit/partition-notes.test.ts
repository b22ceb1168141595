// The partition family's rows, without a cluster: nginx's bounds read from the template the cluster
// renders, and the notes these rows write (variants and expectations, with their figures) each with
// a Chinese phrase in docgen/zh-faults.ts, so the Chinese fault tables never show them in English.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { zhFaultCells } from '../../docgen/zh-faults.js';
import { COLUMNS } from '../../faults/report/cells.js';
import { nginxBounds, nginxCutExpected } from '../../faults/scenarios/nginx-cut.js';
import { cutFromStockExpected, holderCutFencings, LOCK_SERVICE, mysqlCutExpected } from '../../faults/scenarios/partition.js';
import { NGINX_TEMPLATE } from '../../src/cluster/nginx.js';

/** A fault row's cell in Chinese: the variant, or the expectation after its ✓. */
function zh(column: 'variant' | 'expected', text: string): string {
  const i = COLUMNS.indexOf(column);
  const cells = COLUMNS.map(() => '');
  cells[i] = column === 'expected' ? `✓ ${text}` : text;
  return zhFaultCells(cells)[i] as string;
}

const untranslated = (column: 'variant' | 'expected', text: string) => (zh(column, text).includes(text) ? [text] : []);

describe('the partition family', () => {
  it("reads nginx's bounds from the project's template: connect 2 s, read 120 s, idle 4 s, /check/lock never resent", () => {
    expect(nginxBounds()).toEqual({ connectMs: 2_000, readMs: 120_000, keepaliveMs: 4_000, workers: 2, neverResends: true });
    // a location's own read timeout wins over the server's, and a resend left on is seen
    const template = fs
      .readFileSync(NGINX_TEMPLATE, 'utf8')
      .replace(/(location = \/check\/lock \{)/, '$1\n            proxy_read_timeout 30s;')
      .replace(/(location = \/check\/lock \{[^}]*?)proxy_next_upstream off;/, '$1');
    expect(nginxBounds(template)).toMatchObject({ readMs: 30_000, neverResends: false });
  });

  it('runs mysql-lock-table cut from MySQL once: its holder never reaches the stock, so fenced=1 would change nothing', () => {
    expect(LOCK_SERVICE['mysql-lock-table']).toBe('mysql');
    expect(holderCutFencings('mysql-lock-table')).toEqual(['unfenced']);
    expect(holderCutFencings('redis-owned')).toEqual(['unfenced', 'fenced']);
  });

  it('has a Chinese phrase for every note these rows write, its figures kept', () => {
    const variants = [...Object.values(LOCK_SERVICE).map((s) => `holder cut from ${s}, unfenced`), 'nginx cut from the instance with a request in flight'];
    const notes = [cutFromStockExpected(20), mysqlCutExpected(20), nginxCutExpected(20, nginxBounds())];
    expect([...variants.flatMap((v) => untranslated('variant', v)), ...notes.flatMap((n) => untranslated('expected', n))]).toEqual([]);
    expect(zh('expected', nginxCutExpected(7, nginxBounds()))).toMatch(/proxy_read_timeout 120 秒.*N（7）/);
  });
});
