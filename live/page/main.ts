// The live lab's page: settings and a strategy picker, live figures, the space-time view, fault
// buttons, the guided tour and the runs. With an inline run log (an exported file) it replays that
// run with a time slider and needs no server.
import { PAUSE_POINTS, type FaultMark, type Frame, type Hold, type LabState, type LiveEvent, type PausePoint, type RaceSettings, type RaceSummary, type RunLog, type StrategyInfo } from '../shared/types.js';
import { overlapping } from '../shared/holds.js';
import { el } from './dom.js';
import { chooseLang, DICTIONARIES, type Dictionary, type Key, type Lang } from './i18n.js';
import { renderGoodput, renderTimeline } from './timeline.js';
import { TOUR } from './tour.js';

/** The label of each pause point in the freeze menu. */
const POINT_LABEL = { 'before-write': 'beforeWrite', 'after-acquire': 'afterAcquire', 'after-setnx': 'afterSetnx', 'before-del': 'beforeDel', 'after-read': 'afterRead' } as const satisfies Record<PausePoint, Key>;

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
let replayAt: number | undefined;
let runs: { id: string; startedAt: string; settings: RaceSettings; summary?: RaceSummary }[] = [];
let faultMs = 10_000;

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
  const select = el('select', { id: 'strategy' }, ...strategies.map((s) => el('option', { value: s.name, selected: s.name === settings.strategy }, `${s.name} (${s.course[lang]})`)));
  select.addEventListener('change', () => {
    settings = { ...settings, strategy: select.value };
    build();
  });
  const fenced = el('input', { id: 'fenced', type: 'checkbox', checked: settings.fenced });
  fenced.addEventListener('change', () => (settings = { ...settings, fenced: fenced.checked }));
  const via = el('select', { id: 'via' }, el('option', { value: 'one', selected: settings.via === 'one' }, t.viaOne), el('option', { value: 'three', selected: settings.via === 'three' }, t.viaThree));
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
    el('div', { class: 'grid' }, field('units', numberInput('units')), field('requests', numberInput('requests')), field('connections', numberInput('connections')), field('workMs', numberInput('workMs')), field('ttlMs', numberInput('ttlMs')), field('via', via)),
    el('label', { class: 'check' }, fenced, t.fenced),
    el('div', { class: 'freeze' }, el('label', { class: 'check' }, freeze, t.freezeHolder), field('freezePoint', point), field('freezeMs', ms)),
    race,
    el('p', { class: 'message', id: 'message', role: 'status' }, message),
  );
}

function tour(): HTMLElement {
  const step = TOUR[tourIndex] ?? TOUR[0]!;
  const nav = el('ol', { class: 'steps' }, ...TOUR.map((s, i) => {
    const b = el('button', { 'data-tour-index': i, class: i === tourIndex ? 'current' : '', title: t[s.title] }, String(i + 1));
    b.addEventListener('click', () => {
      tourIndex = i;
      build();
    });
    return el('li', {}, b);
  }));
  const run = el('button', { class: 'primary', id: 'tour-run', disabled: pageState === 'racing' }, `${t.tourRun} ▶`);
  run.addEventListener('click', () => {
    settings = { ...step.settings };
    void startRace(step.settings, step.fault);
  });
  return el('section', { class: 'panel tour' }, el('h2', {}, t.tour), nav, el('h3', { id: 'tour-title' }, `${lang === 'zh' ? `${t.tourStep} ${tourIndex + 1} 步：` : `${t.tourStep} ${tourIndex + 1}: `}${t[step.title]}`), el('p', { id: 'tour-text' }, t[step.text]), run);
}

function faultPanel(): HTMLElement {
  const btn = (label: Key, body: Record<string, unknown>, tip?: Key) => {
    const b = el('button', { title: tip ? t[tip] : undefined, 'data-fault': String(body.action), 'data-target': body.target as string | undefined }, t[label]);
    b.addEventListener('click', () => void post('/api/fault', { ...body, ...(body.action !== 'heal' && body.action !== 'heal-all' && { ms: faultMs }) }).then((a) => {
      message = a.ok ? '' : (a.message ?? '');
      document.getElementById('message')!.textContent = message;
    }));
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
    ...laneNames.map((lane) => el('div', { class: 'fault-row' }, el('span', { class: 'lane-name' }, lane), btn('freeze', { action: 'freeze', target: lane }, 'freezeTip'), btn('kill', { action: 'kill', target: lane }, 'killTip'), btn('heal', { action: 'heal', target: lane }))),
    el('div', { class: 'fault-row' }, btn('killRedlock', { action: 'kill-redlock' }), btn('killZookeeper', { action: 'kill-zookeeper' }), btn('healAll', { action: 'heal-all' })),
  );
}

function figure(key: string, label: Key, tip?: Key): HTMLElement {
  return el('div', { class: `figure fig-${key}`, title: tip ? t[tip] : undefined }, el('span', { class: 'label' }, t[label]), el('span', { class: 'value', 'data-figure': key }, '—'));
}

function figures(): HTMLElement {
  return el(
    'section',
    { class: 'panel figures' },
    el('div', { class: 'status' }, el('span', { id: 'state-word' }), el('span', { id: 'verdict' })),
    el('div', { class: 'figure-grid' }, figure('mysql', 'mysqlStock'), figure('redis', 'redisStock'), figure('sold', 'sold'), figure('deducted', 'deducted'), figure('oversold', 'oversold', 'oversoldTip'), figure('overlaps', 'overlaps', 'overlapTip'), figure('soldOut', 'soldOut'), figure('goodput', 'goodput')),
    el('div', { class: 'refused' }, el('span', { class: 'label' }, t.refused), el('span', { id: 'refused-list' })),
    el('div', { id: 'goodput-chart' }),
  );
}

function timelinePanel(): HTMLElement {
  const legend = el(
    'ul',
    { class: 'legend' },
    el('li', {}, el('i', { class: 'sw hold' }), t.legendHold),
    el('li', {}, el('i', { class: 'sw overlap' }), '▼ ', t.legendOverlap),
    el('li', {}, el('i', { class: 'sw refused' }), t.legendRefused),
    el('li', {}, el('i', { class: 'sw frozen' }), t.legendFrozen),
    el('li', {}, '✕ ', t.legendKilled),
  );
  const parts: HTMLElement[] = [el('h2', {}, t.timeline), legend, el('div', { id: 'timeline' })];
  if (inlineLog) {
    const end = frames.at(-1)?.t ?? 0;
    const slider = el('input', { id: 'replay', type: 'range', min: 0, max: Math.ceil(end), value: Math.ceil(replayAt ?? end), 'aria-label': t.replayTime });
    slider.addEventListener('input', () => {
      replayAt = Number(slider.value);
      renderLive();
    });
    parts.splice(1, 0, el('label', { class: 'replay' }, el('span', {}, `${t.replay} · ${t.replayTime}`), slider));
  }
  return el('section', { class: 'panel timeline-panel' }, ...parts);
}

function renderRuns(): void {
  const box = document.getElementById('runs');
  if (!box) return;
  box.replaceChildren(
    el('h2', {}, t.runs),
    runs.length === 0
      ? el('p', {}, t.noRuns)
      : el('ul', {}, ...runs.map((r) => el('li', {}, `${r.startedAt.slice(11, 19)} ${r.settings.strategy} · ${t.oversold} ${r.summary?.oversold ?? '—'} · `, el('a', { href: `/api/run?id=${encodeURIComponent(r.id)}`, download: '' }, t.exportJson), ' · ', el('a', { href: `/api/run?id=${encodeURIComponent(r.id)}&format=html`, download: '', 'data-export': r.id }, t.exportHtml)))),
  );
}

function header(): HTMLElement {
  const sw = el('nav', { class: 'lang', 'aria-label': t.language }, ...(['en', 'zh'] as const).map((l) => {
    const a = el('a', { href: `?lang=${l}`, lang: l, 'aria-current': l === lang ? 'true' : undefined, 'data-lang': l }, l === 'en' ? 'English' : '中文');
    a.addEventListener('click', (ev) => {
      ev.preventDefault();
      lang = l;
      t = DICTIONARIES[l];
      history.replaceState(null, '', `?lang=${l}`);
      build();
    });
    return a;
  }));
  return el('header', {}, el('div', {}, el('h1', {}, t.title), el('p', { class: 'subtitle' }, t.subtitle)), sw);
}

function build(): void {
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  document.body.dataset.lang = lang;
  document.title = t.title;
  const main = inlineLog
    ? el('main', { class: 'replay-mode' }, figures(), timelinePanel())
    : el('main', {}, el('div', { class: 'side' }, tour(), controls(), faultPanel()), el('div', { class: 'stage' }, figures(), timelinePanel(), el('section', { class: 'panel', id: 'runs' })));
  document.body.replaceChildren(header(), main);
  renderRuns();
  renderLive();
}

function setFigure(key: string, value: number | undefined, digits = 0): void {
  const e = document.querySelector<HTMLElement>(`[data-figure="${key}"]`);
  if (!e) return;
  e.textContent = value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits);
  e.dataset.value = value === undefined ? '' : String(value);
  e.classList.toggle('bad', key === 'oversold' || key === 'overlaps' ? (value ?? 0) > 0 : false);
}

function renderLive(): void {
  const at = replayAt ?? Infinity;
  const shown = frames.filter((f) => f.t <= at);
  const last = shown.at(-1);
  const final = replayAt === undefined || shown.length === frames.length ? summary : undefined;
  const stock = last?.stock ?? {};
  const store = summary?.store ?? (strategies.find((s) => s.name === settings.strategy)?.stores[0] === 'redis' ? 'redis' : 'mysql');
  const tally = final?.tally ?? last?.tally;
  const left = final?.left ?? stock[store];
  const deducted = left === undefined ? undefined : settings.units - left;
  const visibleHolds = holds.filter((h) => h.start <= at);
  setFigure('mysql', stock.mysql);
  setFigure('redis', stock.redis);
  setFigure('sold', tally?.sold);
  setFigure('deducted', final?.deducted ?? deducted);
  setFigure('oversold', final?.oversold ?? (tally && deducted !== undefined ? tally.sold - deducted : undefined));
  setFigure('overlaps', overlapping(visibleHolds).size);
  setFigure('soldOut', tally?.soldOut);
  const window = shown.slice(-10);
  setFigure('goodput', final ? final.goodput : (window.reduce((n, f) => n + f.goodput, 0) * 1_000) / (Math.max(1, window.length) * 100), 0);
  const refused = document.getElementById('refused-list');
  if (refused) {
    const entries = Object.entries({ ...tally?.refused, ...tally?.other });
    refused.replaceChildren(...(entries.length === 0 ? [el('span', { 'data-refused': 'none' }, '0')] : entries.map(([k, n]) => el('span', { class: 'chip', 'data-refused': k, 'data-value': n }, `${k} ${n}`))));
  }
  const word = document.getElementById('state-word');
  if (word) word.textContent = { loading: '…', idle: t.stateIdle, racing: t.stateRacing, done: t.stateDone, failed: t.stateFailed }[pageState];
  const verdict = document.getElementById('verdict');
  if (verdict) {
    verdict.textContent = final ? (final.oversold > 0 ? t.verdictOversold : t.verdictExact) : '';
    verdict.className = final ? (final.oversold > 0 ? 'bad' : 'good') : '';
  }
  const box = document.getElementById('timeline');
  if (box) {
    const now = replayAt ?? Math.max(last?.t ?? 0, ...visibleHolds.map((h) => h.end));
    box.replaceChildren(renderTimeline({ lanes: lanes.length ? lanes : (lab?.lanes ?? []), holds: visibleHolds, faults: (replayAt === undefined ? faults : (last?.faults ?? [])).filter((f) => f.start <= at), now, width: Math.max(300, box.clientWidth) }, t));
  }
  const chart = document.getElementById('goodput-chart');
  if (chart) chart.replaceChildren(renderGoodput(shown.map((f, i) => ({ t: f.t, perSecond: shown.slice(Math.max(0, i - 4), i + 1).reduce((n, g) => n + g.goodput, 0) * 2 })), Math.max(200, chart.clientWidth)));
  for (const b of document.querySelectorAll<HTMLButtonElement>('#race, #tour-run')) b.disabled = pageState === 'racing';
  const race = document.getElementById('race');
  if (race) race.textContent = pageState === 'racing' ? t.racing : t.race;
}

async function boot(): Promise<void> {
  if (inlineLog) {
    const run = JSON.parse(inlineLog.textContent ?? '{}') as RunLog;
    lanes = run.lanes;
    settings = run.settings;
    frames = run.frames;
    holds = run.frames.flatMap((f) => f.holds);
    summary = run.summary;
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
  setState(lab.racing ? 'racing' : 'idle');
  build();
  void refreshRuns();
  const events = new EventSource('/events');
  events.onmessage = (m: MessageEvent<string>) => onEvent(JSON.parse(m.data) as LiveEvent);
  window.addEventListener('resize', schedule);
}

void boot();
