// The page's script, bundled once at start by esbuild (tsx's own dependency) from live/page/, and
// the HTML shell around it: served by the lab, or standing alone as an exported run.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import type { RunLog } from './shared/types.js';

const ENTRY = fileURLToPath(new URL('./page/main.ts', import.meta.url));
const STYLE = fileURLToPath(new URL('./page/style.css', import.meta.url));

export interface Assets {
  script: string;
  style: string;
}

export async function bundlePage(): Promise<Assets> {
  const out = await build({ entryPoints: [ENTRY], bundle: true, write: false, format: 'iife', target: 'es2022', minify: true, logLevel: 'silent' });
  const css = await build({ entryPoints: [STYLE], bundle: true, write: false, minify: true, logLevel: 'silent' });
  return { script: out.outputFiles[0]?.text ?? '', style: css.outputFiles[0]?.text ?? '' };
}

/** `</script` inside inline JSON or JS would end the element: escape the `<`. */
const inline = (text: string) => text.replace(/<\/(script|style)/gi, '<\\/$1');

function shell(head: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>stocklab live</title>${head}</head><body data-state="loading">${body}</body></html>
`;
}

/** The lab's page: the token only its own page gets, the script and style from this server. */
export function livePage(token: string): string {
  return shell(`<meta name="live-token" content="${token}"><link rel="stylesheet" href="/app.css">`, `<script src="/app.js"></script>`);
}

/** One run, standing alone: the script, the style and the run's log inline; opens from disk, no network. */
export function exportedRun(assets: Assets, run: RunLog): string {
  const data = inline(JSON.stringify(run));
  return shell(
    `<style>${inline(assets.style)}</style>`,
    `<script type="application/json" id="run-log">${data}</script><script>${inline(assets.script)}</script>`,
  );
}
