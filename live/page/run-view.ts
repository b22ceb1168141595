// One run's figures, goodput chart and space-time view, painted at a moment: the race as it comes
// (the live view), and recorded runs replayed with one time slider, alone (in the page or as an
// exported file) or two side by side on one shared time axis.
import type { StoreKind } from '../../src/stock/store.js';
import { overlapping } from '../shared/holds.js';
import type { FaultMark, Frame, Hold, RaceSettings, RaceSummary, RunLog } from '../shared/types.js';
import { el } from './dom.js';
import type { Dictionary, Key } from './i18n.js';
import { renderGoodput, renderTimeline } from './timeline.js';

/** What a view draws: a run so far (live) or a whole recorded run. */
export interface RunData {
  lanes: readonly string[];
  settings: RaceSettings;
  frames: readonly Frame[];
  holds: readonly Hold[];
  summary?: RaceSummary;
  /** the store whose stock counts, until the summary says */
  store: StoreKind;
}

/** Each store's stock figure (data-figure is the store's name), in this order. */
const STOCK_LABEL = { mysql: 'mysqlStock', redis: 'redisStock', postgres: 'postgresStock' } as const satisfies Record<StoreKind, Key>;
const STORES = Object.keys(STOCK_LABEL) as StoreKind[];

export interface PaintOptions {
  /** ms since the race began; absent: everything so far */
  at?: number;
  /** the faults to draw when `at` is absent (the lab's current ones); a replay draws its frames' */
  faults?: readonly FaultMark[];
  stateWord: string;
  /** the time axis' end, ms, shared by runs shown side by side */
  axisEnd?: number;
  /** false: the figures only, the space-time view left as it is (a live race spares its cost) */
  drawTimeline?: boolean;
}

export function runData(run: RunLog): RunData {
  return {
    lanes: run.lanes,
    settings: run.settings,
    frames: run.frames,
    holds: run.frames.flatMap((f) => f.holds),
    store: run.summary?.store ?? 'mysql',
    ...(run.summary && { summary: run.summary }),
  };
}

/** When a recorded run's last frame or hold ends, ms. */
export function runEnd(run: RunLog): number {
  return Math.max(1, ...run.frames.map((f) => f.t), ...run.frames.flatMap((f) => f.holds.map((h) => h.end)));
}

function figure(t: Dictionary, key: string, label: Key, tip?: Key): HTMLElement {
  return el(
    'div',
    { class: `figure fig-${key}`, title: tip ? t[tip] : undefined },
    el('span', { class: 'label' }, t[label]),
    el('span', { class: 'value', 'data-figure': key }, '—'),
  );
}

/** The live view keeps its ids (#verdict, #timeline …); views beside each other have classes only. */
const part = (name: string, primary: boolean, id = name) => ({ class: name, id: primary ? id : undefined });

export function figuresPanel(t: Dictionary, primary: boolean): HTMLElement {
  return el(
    'section',
    { class: 'panel figures' },
    el('div', { class: 'status' }, el('span', part('state-word', primary)), el('span', part('verdict', primary))),
    el(
      'div',
      { class: 'figure-grid' },
      ...STORES.map((store) => figure(t, store, STOCK_LABEL[store])),
      figure(t, 'sold', 'sold'),
      figure(t, 'deducted', 'deducted'),
      figure(t, 'oversold', 'oversold', 'oversoldTip'),
      figure(t, 'overlaps', 'overlaps', 'overlapTip'),
      figure(t, 'soldOut', 'soldOut'),
      figure(t, 'goodput', 'goodput'),
    ),
    el('div', { class: 'refused' }, el('span', { class: 'label' }, t.refused), el('span', part('refused-list', primary))),
    el('div', part('goodput-chart', primary)),
  );
}

export function legend(t: Dictionary): HTMLElement {
  return el(
    'ul',
    { class: 'legend' },
    el('li', {}, el('i', { class: 'sw hold' }), t.legendHold),
    el('li', {}, el('i', { class: 'sw overlap' }), '▼ ', t.legendOverlap),
    el('li', {}, el('i', { class: 'sw refused' }), t.legendRefused),
    el('li', {}, el('i', { class: 'sw frozen' }), t.legendFrozen),
    el('li', {}, '✕ ', t.legendKilled),
    el('li', {}, el('i', { class: 'sw cut' }), '✂ ', t.legendCut),
  );
}

export function timelineBox(primary: boolean): HTMLElement {
  return el('div', part('timeline-box', primary, 'timeline'));
}

function setFigure(root: ParentNode, key: string, value: number | undefined): void {
  const e = root.querySelector<HTMLElement>(`[data-figure="${key}"]`);
  if (!e) return;
  e.textContent = value === undefined || Number.isNaN(value) ? '—' : value.toFixed(0);
  e.dataset.value = value === undefined ? '' : String(value);
  e.classList.toggle('bad', key === 'oversold' || key === 'overlaps' ? (value ?? 0) > 0 : false);
}

/** Fills a view's figures, chart and space-time view from `data` as it stood at `o.at`. */
export function paintRun(root: ParentNode, data: RunData, o: PaintOptions, t: Dictionary): void {
  const at = o.at ?? Infinity;
  const shown = data.frames.filter((f) => f.t <= at);
  const last = shown.at(-1);
  const final = shown.length === data.frames.length ? data.summary : undefined;
  const stock = last?.stock ?? {};
  const store = data.summary?.store ?? data.store;
  const tally = final?.tally ?? last?.tally;
  const left = final?.left ?? stock[store];
  const deducted = left === undefined ? undefined : data.settings.units - left;
  const holds = data.holds.filter((h) => h.start <= at);
  for (const s of STORES) setFigure(root, s, stock[s]);
  setFigure(root, 'sold', tally?.sold);
  setFigure(root, 'deducted', final?.deducted ?? deducted);
  setFigure(root, 'oversold', final?.oversold ?? (tally && deducted !== undefined ? tally.sold - deducted : undefined));
  setFigure(root, 'overlaps', overlapping(holds).size);
  setFigure(root, 'soldOut', tally?.soldOut);
  const window = shown.slice(-10);
  setFigure(root, 'goodput', final ? final.goodput : (window.reduce((n, f) => n + f.goodput, 0) * 1_000) / (Math.max(1, window.length) * 100));
  const refused = root.querySelector('.refused-list');
  if (refused) {
    const entries = Object.entries({ ...tally?.refused, ...tally?.other });
    refused.replaceChildren(
      ...(entries.length === 0
        ? [el('span', { 'data-refused': 'none' }, '0')]
        : entries.map(([k, n]) => el('span', { class: 'chip', 'data-refused': k, 'data-value': n }, `${k} ${n}`))),
    );
  }
  const word = root.querySelector('.state-word');
  if (word) word.textContent = o.stateWord;
  const verdict = root.querySelector('.verdict');
  if (verdict) {
    verdict.textContent = final ? (final.oversold > 0 ? t.verdictOversold : t.verdictExact) : '';
    verdict.classList.toggle('bad', final !== undefined && final.oversold > 0);
    verdict.classList.toggle('good', final !== undefined && final.oversold <= 0);
  }
  const box = root.querySelector<HTMLElement>('.timeline-box');
  if (box && o.drawTimeline !== false) {
    const now = o.at ?? Math.max(last?.t ?? 0, ...holds.map((h) => h.end));
    const faults = (o.at === undefined && o.faults ? o.faults : (last?.faults ?? [])).filter((f) => f.start <= at);
    box.replaceChildren(
      renderTimeline(
        { lanes: data.lanes, holds, faults, now, width: Math.max(300, box.clientWidth), ...(o.axisEnd !== undefined && { axisEnd: o.axisEnd }) },
        t,
      ),
    );
  }
  const chart = root.querySelector<HTMLElement>('.goodput-chart');
  if (chart)
    chart.replaceChildren(
      renderGoodput(
        shown.map((f, i) => ({ t: f.t, perSecond: shown.slice(Math.max(0, i - 4), i + 1).reduce((n, g) => n + g.goodput, 0) * 2 })),
        Math.max(200, chart.clientWidth),
        o.axisEnd,
      ),
    );
}

/** A run in a few words: strategy, instances, fencing, when, how long. */
export function runCaption(run: Pick<RunLog, 'settings' | 'startedAt'> & { summary?: Pick<RaceSummary, 'seconds'> }, t: Dictionary): string {
  const s = run.settings;
  return [
    s.strategy,
    s.via === 'one' ? t.viaOne : t.viaThree,
    ...(s.fenced ? ['fenced=1'] : []),
    ...(s.freezeHolder ? [`${t.freezeHolder} ${s.freezeHolder.ms} ms`] : []),
    ...(s.cutHolder ? [`✂ ${s.cutHolder.from}`] : []),
    ...(s.rttMs !== undefined ? [t.rttCaption.replace('{ms}', String(s.rttMs))] : []),
    run.startedAt.slice(11, 19),
    ...(run.summary ? [`${run.summary.seconds.toFixed(1)} s`] : []),
  ].join(' · ');
}

export interface ReplayBoard {
  element: HTMLElement;
  /** paints again (after a resize) */
  paint(): void;
}

/**
 * Recorded runs replayed under one time slider (#replay) on one time axis, scaled to the longest:
 * one run alone, or two side by side (stacked on a narrow screen). `state.at` keeps the slider's
 * place across a rebuild (a language switch).
 */
export function replayBoard(runs: readonly RunLog[], t: Dictionary, state: { at?: number }, head: readonly HTMLElement[] = []): ReplayBoard {
  const end = Math.max(...runs.map(runEnd));
  const data = runs.map(runData);
  const views = runs.map((run, i) =>
    el(
      'div',
      { class: 'run-view', 'data-run-view': i, 'data-strategy': run.settings.strategy },
      el('h2', { class: 'run-caption' }, runCaption(run, t)),
      figuresPanel(t, false),
      el('section', { class: 'panel timeline-panel' }, timelineBox(false)),
    ),
  );
  const clock = el('span', { class: 'replay-clock' });
  const slider = el('input', { id: 'replay', type: 'range', min: 0, max: Math.ceil(end), value: Math.ceil(state.at ?? end), 'aria-label': t.replayTime });
  const paint = () => {
    const at = state.at;
    clock.textContent = `${((at ?? end) / 1_000).toFixed(2)} / ${(end / 1_000).toFixed(2)} s`;
    views.forEach((v, i) => paintRun(v, data[i] as RunData, { ...(at !== undefined && { at }), stateWord: t.replay, axisEnd: end }, t));
  };
  slider.addEventListener('input', () => {
    state.at = Number(slider.value);
    paint();
  });
  const controls = el(
    'section',
    { class: 'panel replay-controls' },
    ...head,
    el('label', { class: 'replay' }, el('span', {}, `${t.replay} · ${t.replayTime}`), slider, clock),
    legend(t),
  );
  const element = el('div', { class: `replay-board runs-${runs.length}` }, controls, el('div', { class: 'run-views' }, ...views));
  return { element, paint };
}
