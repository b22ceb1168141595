// The images the manifests run: the official ones docker-compose*.yml names (a unit test finds each
// tag there, so the two cannot drift), and the service's own image from the Dockerfile, tagged with
// the package's version: never `latest`, so a rollout names what it runs.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../paths.js';

export const IMAGES = {
  mysql: 'mysql:8.0',
  redis: 'redis:7-alpine',
  zookeeper: 'zookeeper:3.9',
  postgres: 'postgres:15',
  etcd: 'quay.io/coreos/etcd:v3.4.35',
  nginx: 'nginx:1.27-alpine',
} as const;

/** The Dockerfile's image as `docker build -t stocklab:<version> .` tags it. */
export function appImage(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  return `${pkg.name}:${pkg.version}`;
}
