// `npm run kubernetes -- render [--overlay single|replicated]`: writes deploy/kubernetes/ from the
// settings the native cluster starts with. Offline: it reads the repository and nothing else.
import fs from 'node:fs';
import path from 'node:path';
import { parseFlags, runCli, UsageError } from '../../src/cli/args.js';
import { OVERLAYS, type Overlay } from '../../src/kubernetes/topology.js';
import { KUBERNETES_FLAGS } from './options.js';
import { DEPLOY_DIR, renderFiles } from './render.js';

export const USAGE = `usage: npm run kubernetes -- render [--overlay single|replicated]
  render     write deploy/kubernetes/: the kustomize base, the overlays and the Chaos Mesh
             experiments (docs/kubernetes.md); without --overlay, all of them, and any .yaml there
             that is no longer rendered is removed
  --overlay  only the base, that overlay and its experiments`;

/** Every .yaml under dir, relative to it. */
function yamlFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.yaml')).sort();
}

async function main(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags(args, KUBERNETES_FLAGS, true);
  if (positionals.length !== 1 || positionals[0] !== 'render') throw new UsageError(`expected the command render, got "${positionals.join(' ')}"`);
  const overlay = values.overlay;
  if (overlay !== undefined && !OVERLAYS.includes(overlay as Overlay)) throw new UsageError(`--overlay must be ${OVERLAYS.join(' or ')}, got "${overlay}"`);
  const files = renderFiles(overlay as Overlay | undefined);
  if (overlay === undefined) for (const stale of yamlFiles(DEPLOY_DIR).filter((f) => !files.has(f))) fs.rmSync(path.join(DEPLOY_DIR, stale));
  for (const [file, content] of files) {
    fs.mkdirSync(path.dirname(path.join(DEPLOY_DIR, file)), { recursive: true });
    fs.writeFileSync(path.join(DEPLOY_DIR, file), content);
  }
  console.error(`wrote ${files.size} files under ${path.relative(process.cwd(), DEPLOY_DIR) || '.'}`);
  return 0;
}

runCli('kubernetes', USAGE, () => main(process.argv.slice(2)));
