// The fault run's main cases side by side, one row per lock: how long a crashed holder's lock
// stays taken, what a paused holder oversells with and without fencing, and the next sale after a
// lost reply. Every cell comes from one row of the run (store=mysql).
import { recoverText } from '../faults/report/cells.js';
import type { FaultRow } from '../faults/row.js';
import type { Lang } from '../src/lang.js';
import { markdownTable } from '../report/table.js';

/** The table's words in each language; the figures are the same in both. */
const WORDS = {
  en: {
    columns: [
      'strategy',
      'holder crash: next holder after (ms)',
      'holder pause, unfenced: oversold',
      "holder pause, `fenced=1`: oversold (holder's answer)",
      'lost reply: next sale after (ms)',
    ],
    pause: (oversold: string, sold: number) => `${oversold} of ${sold} sold`,
    refused: (answer: string) => `refused: ${answer}`,
    answered: (oversold: number, answer: string) => `${oversold} (${answer})`,
  },
  zh: {
    columns: [
      '方案',
      '持锁者宕机：下一个持锁者等待（毫秒）',
      '持锁者停顿，不加防护令牌：超卖',
      '持锁者停顿，`fenced=1`：超卖（持锁者得到的响应）',
      '响应丢失：下一次售出等待（毫秒）',
    ],
    pause: (oversold: string, sold: number) => `超卖 ${oversold}（售出 ${sold}）`,
    refused: (answer: string) => `被拒绝：${answer}`,
    answered: (oversold: number, answer: string) => `${oversold}（${answer}）`,
  },
} satisfies Record<Lang, unknown>;

/** "20 of 21 sold", bold when above 0. */
function pauseText(r: FaultRow, lang: Lang): string {
  return WORDS[lang].pause(r.oversold > 0 ? `**${r.oversold}**` : String(r.oversold), r.sold);
}

/** The holder's own answer(s) in the case, e.g. "503 fenced". */
const holderAnswer = (r: FaultRow) => Object.keys(r.byRole.holder ?? {}).join(', ') || '–';

export function faultsByLock(rows: readonly FaultRow[], lang: Lang = 'en'): string {
  const w = WORDS[lang];
  const mysql = rows.filter((r) => r.store === 'mysql');
  const pick = (scenario: string, strategy: string, variant?: string) =>
    mysql.find((r) => r.scenario === scenario && r.strategy === strategy && (variant === undefined || r.variant === variant));
  const strategies = [...new Set(mysql.filter((r) => r.scenario === 'holder-crash' || r.scenario === 'holder-pause').map((r) => r.strategy))];
  return markdownTable(
    w.columns,
    strategies.map((s) => {
      const crash = pick('holder-crash', s);
      const unfenced = pick('holder-pause', s, 'unfenced');
      const fenced = pick('holder-pause', s, 'fenced');
      const lost = pick('lost-reply', s);
      return [
        `\`${s}\``,
        crash ? recoverText(crash) : '',
        unfenced ? pauseText(unfenced, lang) : '',
        fenced ? (fenced.deducted === 0 && fenced.sold === 0 ? w.refused(holderAnswer(fenced)) : w.answered(fenced.oversold, holderAnswer(fenced))) : '',
        lost ? recoverText(lost) : '',
      ];
    }),
  );
}
