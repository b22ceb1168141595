// The fault run's main cases side by side, one row per lock: how long a crashed holder's lock
// stays taken, what a paused holder oversells with and without fencing, and the next sale after a
// lost reply. Every cell comes from one row of the run (store=mysql).
import { recoverText } from '../faults/report/cells.js';
import type { FaultRow } from '../faults/row.js';
import { markdownTable } from './table.js';

const COLUMNS = ['strategy', 'holder crash: next holder after (ms)', 'holder pause, unfenced: oversold', 'holder pause, `fenced=1`: oversold (holder\'s answer)', 'lost reply: next sale after (ms)'];

/** "20 of 21 sold", bold when above 0. */
function pauseText(r: FaultRow): string {
  return r.oversold > 0 ? `**${r.oversold}** of ${r.sold} sold` : `${r.oversold} of ${r.sold} sold`;
}

/** The holder's own answer(s) in the case, e.g. "503 fenced". */
const holderAnswer = (r: FaultRow) => Object.keys(r.byRole.holder ?? {}).join(', ') || '–';

export function faultsByLock(rows: readonly FaultRow[]): string {
  const mysql = rows.filter((r) => r.store === 'mysql');
  const pick = (scenario: string, strategy: string, variant?: string) => mysql.find((r) => r.scenario === scenario && r.strategy === strategy && (variant === undefined || r.variant === variant));
  const strategies = [...new Set(mysql.filter((r) => r.scenario === 'holder-crash' || r.scenario === 'holder-pause').map((r) => r.strategy))];
  return markdownTable(
    COLUMNS,
    strategies.map((s) => {
      const crash = pick('holder-crash', s);
      const unfenced = pick('holder-pause', s, 'unfenced');
      const fenced = pick('holder-pause', s, 'fenced');
      const lost = pick('lost-reply', s);
      return [
        `\`${s}\``,
        crash ? recoverText(crash) : '',
        unfenced ? pauseText(unfenced) : '',
        fenced ? (fenced.deducted === 0 && fenced.sold === 0 ? `refused: ${holderAnswer(fenced)}` : `${fenced.oversold} (${holderAnswer(fenced)})`) : '',
        lost ? recoverText(lost) : '',
      ];
    }),
  );
}
