// The reports' two languages in one self-contained HTML file: each language's body in its own block,
// and a small inline script that shows one (?lang=, then the browser's languages, English otherwise)
// and two buttons that switch. Nothing is fetched; without a script the English block shows.
import { LANGS, type Bilingual, type Lang } from '../src/lang.js';

const LANG_ATTR: Record<Lang, string> = { en: 'en', zh: 'zh-CN' };
const LANG_NAME: Record<Lang, string> = { en: 'English', zh: '中文' };

/** Hides every language's block but the body's; the switch sits at the top right. */
const SWITCH_CSS = `
body:not([data-lang="zh"]) .l10n:not([data-lang="en"]), body[data-lang="zh"] .l10n:not([data-lang="zh"]) { display: none; }
nav.lang-switch { float: right; display: flex; gap: 4px; }
nav.lang-switch button { font: inherit; font-size: 13px; padding: 2px 10px; border: 1px solid #bbb; background: #fff; border-radius: 4px; cursor: pointer; }
nav.lang-switch button[aria-pressed="true"] { background: #222; color: #fff; border-color: #222; }
body[data-lang="zh"] { font-family: system-ui, "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif; }
`;

/** The same choice as the live page's (src/lang.ts's firstKnownLang), written for an inline script. */
const SCRIPT = `(function () {
  var known = ['en', 'zh'];
  var titles = { en: document.documentElement.dataset.titleEn, zh: document.documentElement.dataset.titleZh };
  function pick() {
    var q = new URLSearchParams(location.search).get('lang');
    if (known.indexOf(q) >= 0) return q;
    var list = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || 'en'];
    for (var i = 0; i < list.length; i++) {
      var base = String(list[i]).toLowerCase().split('-')[0];
      if (known.indexOf(base) >= 0) return base;
    }
    return 'en';
  }
  function show(lang) {
    document.body.dataset.lang = lang;
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    document.title = titles[lang] || document.title;
    var buttons = document.querySelectorAll('nav.lang-switch button');
    for (var i = 0; i < buttons.length; i++) buttons[i].setAttribute('aria-pressed', String(buttons[i].dataset.lang === lang));
  }
  show(pick());
  document.querySelector('nav.lang-switch').addEventListener('click', function (e) {
    var lang = e.target && e.target.dataset && e.target.dataset.lang;
    if (known.indexOf(lang) < 0) return;
    show(lang);
    try { history.replaceState(null, '', '?lang=' + lang); } catch (err) { /* a file: URL may refuse; the switch still works */ }
  });
})();`;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A whole report page: `body(lang)` is rendered once per language, and the switch chooses which shows. */
export function bilingualPage(title: Bilingual, css: string, body: (lang: Lang) => string): string {
  const buttons = LANGS.map((l) => `<button type="button" data-lang="${l}" lang="${LANG_ATTR[l]}" aria-pressed="${l === 'en'}">${LANG_NAME[l]}</button>`).join(
    '',
  );
  const blocks = LANGS.map((l) => `<div class="l10n" data-lang="${l}" lang="${LANG_ATTR[l]}">\n${body(l)}\n</div>`).join('\n');
  return `<!doctype html>
<html lang="en" data-title-en="${esc(title.en)}" data-title-zh="${esc(title.zh)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title.en)}</title>
<style>${css}${SWITCH_CSS}</style></head>
<body>
<nav class="lang-switch" aria-label="Language / 语言">${buttons}</nav>
${blocks}
<script>${SCRIPT}</script>
</body></html>
`;
}
