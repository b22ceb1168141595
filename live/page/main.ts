// The live lab's page: settings and a strategy picker, live figures, the space-time view, fault
// buttons, the guided tour and the runs, which it replays with a time slider, one alone or two side
// by side. With an inline run log (an exported file) it replays that run and needs no server.
import {
  PAUSE_POINTS,
  type FaultMark,
  type Frame,
  type Hold,
  type LabState,
  type LiveEvent,
  type PausePoint,
  type RaceSettings,
  type RaceSummary,
  type RunLog,
  type StrategyInfo,
} from '../shared/types.js';
import { el } from './dom.js';
import { chooseLang, DICTIONARIES, type Dictionary, type Key, type Lang } from './i18n.js';
import { figuresPanel, legend, paintRun, replayBoard, runCaption, timelineBox, type ReplayBoard } from './run-view.js';
import { stepNeeds, TOUR } from './tour.js';

/** The label of each pause point in the freeze menu. */
const POINT_LABEL = {
  'before-write': 'beforeWrite',
  'after-acquire': 'afterAcquire',
  'after-setnx': 'afterSetnx',
  'before-del': 'beforeDel',
  'after-read': 'afterRead',
} as const satisfies Record<PausePoint, Key>;

type PageState = 'loading' | 'idle' | 'racing' | 'done' | 'failed';

const params = new URLSearchParams(location.search);
let lang: Lang = chooseLang(params.get('lang'), navigator.languages ?? [navigator.language]);
let t: Dictionary = DICTIONARIES[lang];
const token = document.querySelector<HTMLMetaElement>('meta[name="live-token"]')?.content ?? '';
const inlineLog = document.getElementById('run-log');

let strategies: StrategyInfo[] = [];
let lab: LabState | undefined;
let settings: RaceSettings = { strategy: 'none', units: 100, requests: 200, connections: 50, workMs: 5, ttlMs: 5_000, fenced: false, via: 'one' };
let lanes: string[] = [];
let frames: Frame[] = [];
let holds: Hold[] = [];
let faults: FaultMark[] = [];
let summary: RaceSummary | undefined;
let pageState: PageState = 'loading';
let message = '';
let tourIndex = 0;
let runs: { id: string; startedAt: string; settings: RaceSettings; summary?: RaceSummary }[] = [];
let faultMs = 10_000;
/** What the stage shows: the live race, or recorded runs replayed (one, or two side by side). */
let view: { kind: 'live' } | { kind: 'replay'; runs: RunLog[]; at?: number } = { kind: 'live' };
let board: ReplayBoard | undefined;
const fetchedRuns = new Map<string, RunLog>();
/** The pair a user picked for side by side, by run id (until then, the newest two). */
const pair: [string | undefined, string | undefined] = [undefined, undefined];

function setState(s: PageState): void {
  pageState = s;
  document.body.dataset.state = s;
}

// --- server calls ---

async function post(path: string, body: unknown): Promise<{ ok: boolean; message?: string; error?: string }> {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-live-token': token }, body: JSON.stringify(body) });
  return (await res.json()) as { ok: boolean; message?: string; error?: string };
}

async function startRace(s: RaceSettings, fault?: (typeof TOUR)[number]['fault']): Promise<void> {
  settings = s;
  message = '';
  const answer = await post('/api/race', s);
  if (!answer.ok) {
    message = answer.error === 'race_running' ? t.busy : (answer.message ?? answer.error ?? '');
    build();
    return;
  }
  if (fault) setTimeout(() => void post('/api/fault', { action: fault.action, ms: fault.ms }), fault.afterMs);
}

async function refreshRuns(): Promise<void> {
  const body = (await (await fetch('/api/runs')).json()) as { runs: typeof runs };
  runs = body.runs;
  renderRuns();
}

function onEvent(e: LiveEvent): void {
  if (e.type === 'start') {
    view = { kind: 'live' };
    lanes = e.run.lanes;
    settings = e.run.settings;
    frames = [];
    holds = [];
    summary = undefined;
    setState('racing');
    build();
  } else if (e.type === 'frame') {
    frames.push(e.frame);
    holds.push(...e.frame.holds);
    faults = e.frame.faults;
    schedule();
  } else if (e.type === 'done') {
    summary = e.summary;
    setState('done');
    schedule();
    void refreshRuns();
  } else if (e.type === 'failed') {
    message = e.message;
    setState('failed');
    build();
  } else if (e.type === 'faults') {
    faults = e.faults;
    schedule();
  } else if (e.type === 'rtt') {
    if (lab) lab = { ...lab, rttMs: e.rttMs };
    document.getElementById('rtt')?.replaceWith(rttNote());
  }
}

// --- rendering ---

let pending = false;
function schedule(): void {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    renderLive();
  });
}

const field = (label: Key, input: HTMLElement, tip?: Key) => el('label', { class: 'field', title: tip ? t[tip] : undefined }, el('span', {}, t[label]), input);

function numberInput(key: 'units' | 'requests' | 'connections' | 'workMs' | 'ttlMs'): HTMLInputElement {
  const input = el('input', { id: key, type: 'number', min: key === 'workMs' ? 0 : 1, value: settings[key], inputmode: 'numeric' });
  input.addEventListener('change', () => (settings = { ...settings, [key]: Number(input.value) }));
  return input;
}

function expectedWord(o: string | undefined): string {
  return o === 'exact' ? t.exact : o === 'oversells' ? t.oversells : '—';
}

function strategyCard(): HTMLElement {
  const s = strategies.find((x) => x.name === settings.strategy);
  if (!s) return el('div');
  const dd = (k: Key, v: string, cls = '') => [el('dt', {}, t[k]), el('dd', { class: cls }, v)];
  const card = el(
    'dl',
    { class: 'card' },
    ...dd('family', s.family),
    ...dd('course', s.course[lang]),
    ...dd('expectedOne', expectedWord(s.expected.oneInstance), s.expected.oneInstance),
    ...dd('expectedThree', expectedWord(s.expected.threeInstances), s.expected.threeInstances),
    ...(s.expected.workOverTtl ? dd('expectedOver', expectedWord(s.expected.workOverTtl), s.expected.workOverTtl) : []),
    ...dd('fencingSource', s.fencing ?? t.noFencing),
  );
  // The description comes from the catalog (GET /strategies), in the page's language.
  return el('div', { id: 'strategy-card' }, el('p', { class: 'description', id: 'strategy-description' }, s.description[lang]), card);
}

function controls(): HTMLElement {
  const select = el(
    'select',
    { id: 'strategy' },
    ...strategies.map((s) => el('option', { value: s.name, selected: s.name === settings.strategy }, `${s.name} (${s.course[lang]})`)),
  );
  select.addEventListener('change', () => {
    settings = { ...settings, strategy: select.value };
    build();
  });
  const fenced = el('input', { id: 'fenced', type: 'checkbox', checked: settings.fenced });
  fenced.addEventListener('change', () => (settings = { ...settings, fenced: fenced.checked }));
  const via = el(
    'select',
    { id: 'via' },
    el('option', { value: 'one', selected: settings.via === 'one' }, t.viaOne),
    el('option', { value: 'three', selected: settings.via === 'three' }, t.viaThree),
  );
  via.addEventListener('change', () => (settings = { ...settings, via: via.value === 'three' ? 'three' : 'one' }));
  const freeze = el('input', { id: 'freezeHolder', type: 'checkbox', checked: settings.freezeHolder !== undefined });
  // every lock strategy's two points, then those of the chosen strategy's own steps
  const own = strategies.find((s) => s.name === settings.strategy)?.pausePoints ?? [];
  const points = PAUSE_POINTS.filter((p) => p === 'before-write' || p === 'after-acquire' || own.includes(p));
  const chosen = settings.freezeHolder?.point ?? 'before-write';
  const point = el('select', { id: 'freezePoint' }, ...points.map((p) => el('option', { value: p, selected: p === chosen }, t[POINT_LABEL[p]])));
  const ms = el('input', { id: 'freezeMs', type: 'number', min: 0, max: 30_000, value: settings.freezeHolder?.ms ?? 2_000 });
  const syncFreeze = () => {
    const { freezeHolder: _drop, ...rest } = settings;
    settings = freeze.checked ? { ...rest, freezeHolder: { point: points.find((p) => p === point.value) ?? 'before-write', ms: Number(ms.value) } } : rest;
  };
  for (const i of [freeze, point, ms]) i.addEventListener('change', syncFreeze);
  const race = el('button', { id: 'race', class: 'primary', title: t.raceTip, disabled: pageState === 'racing' }, pageState === 'racing' ? t.racing : t.race);
  race.addEventListener('click', () => void startRace(settings));
  return el(
    'section',
    { class: 'panel controls' },
    field('strategy', select),
    strategyCard(),
    el(
      'div',
      { class: 'grid' },
      field('units', numberInput('units')),
      field('requests', numberInput('requests')),
      field('connections', numberInput('connections')),
      field('workMs', numberInput('workMs')),
      field('ttlMs', numberInput('ttlMs')),
      field('via', via),
    ),
    el('label', { class: 'check' }, fenced, t.fenced),
    el('div', { class: 'freeze' }, el('label', { class: 'check' }, freeze, t.freezeHolder), field('freezePoint', point), field('freezeMs', ms)),
    race,
    el('p', { class: 'message', id: 'message', role: 'status' }, message),
  );
}

function tour(): HTMLElement {
  const step = TOUR[tourIndex] ?? TOUR[0]!;
  const nav = el(
    'ol',
    { class: 'steps' },
    ...TOUR.map((s, i) => {
      const b = el('button', { 'data-tour-index': i, class: i === tourIndex ? 'current' : '', title: t[s.title] }, String(i + 1));
      b.addEventListener('click', () => {
        tourIndex = i;
        build();
      });
      return el('li', {}, b);
    }),
  );
  // a step this lab cannot run says what it needs instead of failing
  const needs = stepNeeds(step, lab);
  const runs = needs === undefined;
  const run = el(
    'button',
    { class: 'primary', id: 'tour-run', disabled: pageState === 'racing' || !runs, 'data-runs': runs ? undefined : 'no' },
    `${t.tourRun} ▶`,
  );
  run.addEventListener('click', () => {
    settings = { ...step.settings };
    void startRace(step.settings, step.fault);
  });
  return el(
    'section',
    { class: 'panel tour' },
    el('h2', {}, t.tour),
    nav,
    el('h3', { id: 'tour-title' }, `${lang === 'zh' ? `${t.tourStep} ${tourIndex + 1} 步：` : `${t.tourStep} ${tourIndex + 1}: `}${t[step.title]}`),
    el('p', { id: 'tour-text' }, t[step.text]),
    ...(needs ? [el('p', { class: 'needs', id: 'tour-needs' }, t[needs])] : []),
    run,
  );
}

function faultPanel(): HTMLElement {
  const btn = (label: Key, body: Record<string, unknown>, tip?: Key) => {
    const b = el(
      'button',
      {
        title: tip ? t[tip] : undefined,
        'data-fault': String(body.action),
        'data-target': body.target as string | undefined,
        'data-from': body.from as string | undefined,
      },
      t[label],
    );
    b.addEventListener(
      'click',
      () =>
        void post('/api/fault', { ...body, ...(!String(body.action).startsWith('heal') && { ms: faultMs }) }).then((a) => {
          message = a.ok ? '' : (a.message ?? '');
          document.getElementById('message')!.textContent = message;
        }),
    );
    return b;
  };
  const ms = el('input', { id: 'faultMs', type: 'number', min: 0, max: 30_000, value: faultMs });
  ms.addEventListener('change', () => (faultMs = Number(ms.value)));
  const laneNames = lab?.lanes ?? lanes;
  return el(
    'section',
    { class: 'panel faults' },
    el('h2', {}, t.faults),
    field('faultMs', ms),
    ...laneNames.map((lane) =>
      el(
        'div',
        { class: 'fault-row' },
        el('span', { class: 'lane-name' }, lane),
        btn('freeze', { action: 'freeze', target: lane }, 'freezeTip'),
        btn('kill', { action: 'kill', target: lane }, 'killTip'),
        btn('heal', { action: 'heal', target: lane }),
      ),
    ),
    el(
      'div',
      { class: 'fault-row' },
      btn('killRedlock', { action: 'kill-redlock' }),
      btn('killZookeeper', { action: 'kill-zookeeper' }),
      btn('healAll', { action: 'heal-all' }),
    ),
    ...(lab?.network === 'hosts' ? [partitionRows(btn, laneNames)] : []),
  );
}

/** The hosts topology's links the tour cuts: each instance from Redis or ZooKeeper, and a heal. */
function partitionRows(btn: (label: Key, body: Record<string, unknown>, tip?: Key) => HTMLButtonElement, laneNames: readonly string[]): HTMLElement {
  return el(
    'div',
    { class: 'partitions', id: 'partitions' },
    el('h3', {}, t.partitions),
    ...laneNames.map((lane) =>
      el(
        'div',
        { class: 'fault-row' },
        el('span', { class: 'lane-name' }, lane),
        btn('cutFromRedis', { action: 'partition', target: lane, from: 'redis' }, 'cutButtonTip'),
        btn('cutFromZookeeper', { action: 'partition', target: lane, from: 'zookeeper' }, 'cutButtonTip'),
      ),
    ),
    el('div', { class: 'fault-row' }, btn('healLinks', { action: 'heal-partitions' })),
  );
}

function liveTimelinePanel(): HTMLElement {
  return el('section', { class: 'panel timeline-panel' }, el('h2', {}, t.timeline), legend(t), timelineBox(true));
}

async function loadRun(id: string): Promise<RunLog> {
  const known = fetchedRuns.get(id);
  if (known) return known;
  const run = (await (await fetch(`/api/run?id=${encodeURIComponent(id)}`)).json()) as RunLog;
  fetchedRuns.set(id, run);
  return run;
}

async function showRuns(ids: readonly string[]): Promise<void> {
  view = { kind: 'replay', runs: await Promise.all(ids.map(loadRun)) };
  build();
  window.scrollTo({ top: 0 });
}

function renderRuns(): void {
  const box = document.getElementById('runs');
  if (!box) return;
  const replayButton = (id: string) => {
    const b = el('button', { 'data-replay': id }, t.replay);
    b.addEventListener('click', () => void showRuns([id]));
    return b;
  };
  box.replaceChildren(
    el('h2', {}, t.runs),
    runs.length === 0
      ? el('p', {}, t.noRuns)
      : el(
          'ul',
          {},
          ...runs.map((r) =>
            el(
              'li',
              {},
              `${r.startedAt.slice(11, 19)} ${r.settings.strategy} · ${t.oversold} ${r.summary?.oversold ?? '—'} · `,
              replayButton(r.id),
              ' · ',
              el('a', { href: `/api/run?id=${encodeURIComponent(r.id)}`, download: '' }, t.exportJson),
              ' · ',
              el('a', { href: `/api/run?id=${encodeURIComponent(r.id)}&format=html`, download: '', 'data-export': r.id }, t.exportHtml),
            ),
          ),
        ),
    ...(runs.length >= 2 ? [comparePicker()] : []),
  );
}

/** Two selects and a button: the pair to show side by side, the newest two by default (older first). */
function comparePicker(): HTMLElement {
  const ids = runs.map((r) => r.id);
  const picked = pair.map((id, i) => (id && ids.includes(id) ? id : ids[1 - i])) as [string, string];
  const select = (i: 0 | 1) => {
    const s = el(
      'select',
      { id: `compare-${i === 0 ? 'a' : 'b'}`, 'aria-label': t.compareRun },
      ...runs.map((r) => el('option', { value: r.id, selected: r.id === picked[i] }, runCaption(r, t))),
    );
    s.addEventListener('change', () => (pair[i] = s.value));
    return s;
  };
  const [a, b] = [select(0), select(1)];
  const go = el('button', { id: 'compare', class: 'primary' }, t.compareGo);
  go.addEventListener('click', () => void showRuns([a.value, b.value]));
  return el('div', { class: 'compare-picker' }, el('h3', {}, t.compareTitle), a, el('span', {}, t.compareWith), b, go);
}

/** The stage replaying `runs`: a way back to the live race, the slider, the runs. */
function replayStage(runs: RunLog[], state: { at?: number }): HTMLElement {
  const back = el('button', { id: 'back-live' }, `← ${t.backToLive}`);
  back.addEventListener('click', () => {
    view = { kind: 'live' };
    build();
  });
  board = replayBoard(runs, t, state, [
    el('div', { class: 'replay-head' }, el('h2', {}, runs.length > 1 ? t.compareTitle : t.replayOf), back),
    ...(runs.length > 1 ? [el('p', { class: 'note' }, t.sharedAxis)] : []),
  ]);
  return board.element;
}

function header(): HTMLElement {
  const sw = el(
    'nav',
    { class: 'lang', 'aria-label': t.language },
    ...(['en', 'zh'] as const).map((l) => {
      const a = el('a', { href: `?lang=${l}`, lang: l, 'aria-current': l === lang ? 'true' : undefined, 'data-lang': l }, l === 'en' ? 'English' : '中文');
      a.addEventListener('click', (ev) => {
        ev.preventDefault();
        lang = l;
        t = DICTIONARIES[l];
        history.replaceState(null, '', `?lang=${l}`);
        build();
      });
      return a;
    }),
  );
  return el('header', {}, el('div', {}, el('h1', {}, t.title), el('p', { class: 'subtitle' }, t.subtitle), rttNote()), sw);
}

/** What the cluster's links add now, from its record: a round trip, or loopback without forwarders. */
function rttNote(): HTMLElement {
  const ms = lab?.rttMs;
  if (ms === undefined) return el('p', { class: 'rtt', id: 'rtt', hidden: true });
  const text = ms === null ? t.rttLoopback : t.rttLinks.replace('{ms}', String(ms));
  return el('p', { class: ms ? 'rtt delayed' : 'rtt', id: 'rtt', title: t.rttTip, 'data-rtt-ms': ms === null ? 'none' : String(ms) }, text);
}

function build(): void {
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  document.body.dataset.lang = lang;
  document.title = t.title;
  board = undefined;
  let main: HTMLElement;
  if (inlineLog && view.kind === 'replay') {
    board = replayBoard(view.runs, t, view);
    main = el('main', { class: 'replay-mode' }, board.element);
  } else {
    const stage = view.kind === 'live' ? [figuresPanel(t, true), liveTimelinePanel()] : [replayStage(view.runs, view)];
    main = el(
      'main',
      { class: view.kind === 'replay' && view.runs.length > 1 ? 'compare-mode' : '' },
      el('div', { class: 'side' }, tour(), controls(), faultPanel()),
      el('div', { class: 'stage', 'data-stage': view.kind }, ...stage, el('section', { class: 'panel', id: 'runs' })),
    );
  }
  document.body.replaceChildren(header(), main);
  renderRuns();
  renderLive();
}

/**
 * Watching must not slow what is watched (chromium shares the machine with the servers): during a
 * race the space-time view, thousands of bars drawn afresh, is redrawn once the time since its last
 * drawing is 19 times what building it took, and at least 1 ms per 3 bars (1 s at most) apart; the
 * figures follow every frame. Measured (CDP, a 3000-request mutex race): the renderer busy 81 % of
 * the race redrawing every frame, 18 % with this.
 */
const TIMELINE_BUDGET = 19;
const TIMELINE_MS_PER_BAR = 1 / 3;
const TIMELINE_EVERY_MS_MAX = 1_000;
let timelineDueAt = 0;

function renderLive(): void {
  board?.paint();
  const stage = document.querySelector<HTMLElement>('[data-stage="live"]');
  if (stage) {
    const store = summary?.store ?? strategies.find((s) => s.name === settings.strategy)?.stores[0] ?? 'mysql';
    const stateWord = { loading: '…', idle: t.stateIdle, racing: t.stateRacing, done: t.stateDone, failed: t.stateFailed }[pageState];
    const start = performance.now();
    const drawTimeline = pageState !== 'racing' || start >= timelineDueAt;
    paintRun(
      stage,
      { lanes: lanes.length ? lanes : (lab?.lanes ?? []), settings, frames, holds, store, ...(summary && { summary }) },
      { faults, stateWord, drawTimeline },
      t,
    );
    const built = performance.now();
    if (drawTimeline) timelineDueAt = built + Math.max(Math.min(TIMELINE_EVERY_MS_MAX, holds.length * TIMELINE_MS_PER_BAR), TIMELINE_BUDGET * (built - start));
  }
  for (const b of document.querySelectorAll<HTMLButtonElement>('#race, #tour-run')) b.disabled = pageState === 'racing' || b.dataset.runs === 'no';
  const race = document.getElementById('race');
  if (race) race.textContent = pageState === 'racing' ? t.racing : t.race;
}

async function boot(): Promise<void> {
  if (inlineLog) {
    view = { kind: 'replay', runs: [JSON.parse(inlineLog.textContent ?? '{}') as RunLog] };
    setState('done');
    build();
    return;
  }
  [strategies, lab] = await Promise.all([
    fetch('/api/strategies').then(async (r) => ((await r.json()) as { strategies: StrategyInfo[] }).strategies),
    fetch('/api/state').then(async (r) => (await r.json()) as LabState),
  ]);
  lanes = lab.lanes;
  faults = lab.faults;
  // ?strategy=NAME (the bench report's links) picks the strategy
  const asked = strategies.find((s) => s.name === params.get('strategy'));
  if (asked) settings = { ...settings, strategy: asked.name };
  setState(lab.racing ? 'racing' : 'idle');
  build();
  void refreshRuns();
  const events = new EventSource('/events');
  events.onmessage = (m: MessageEvent<string>) => onEvent(JSON.parse(m.data) as LiveEvent);
  window.addEventListener('resize', schedule);
}

void boot();
