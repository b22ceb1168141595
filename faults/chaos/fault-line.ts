// A chaos fault as one line of text, for the report's list and the timeline's tooltips.
import type { Lang } from '../../src/lang.js';
import type { FaultEvent } from './history.js';
import { CHAOS_WORDS, chaosText } from './words.js';

/** One fault as a line: its window, kind and target, what it cut (a partition) and what happened on the way. */
export function faultLine(f: FaultEvent, lang: Lang = 'en'): string {
  const w = CHAOS_WORDS[lang];
  const s = lang === 'zh' ? ' 秒' : ' s';
  const window = `${(f.injectedMs / 1000).toFixed(1)}–${f.healedMs === undefined ? '?' : (f.healedMs / 1000).toFixed(1)}${s}`;
  const healed =
    f.partition?.healMs !== undefined && f.partition.healMs !== f.healedMs ? `${w.then}${w.html.linksHealed((f.partition.healMs / 1000).toFixed(1))}` : '';
  const [open, close, colon] = lang === 'zh' ? ['（', '）', '：'] : [' (', ')', ': '];
  const cut = f.partition ? `${open}${chaosText(f.partition.text, lang)}${healed}${close}` : '';
  return `${window} ${f.kind} ${f.target}${cut}${f.note ? `${colon}${chaosText(f.note, lang)}` : ''}`;
}
