// Lua scripts live in lua/*.lua, one a file. Each file's first line declares its key count
// (`-- keys: N`). They are read from disk once per process and defined on each connection, where
// ioredis runs them by SHA and sends the body only when the server does not have it yet. Code runs
// a script only through its declaration (luaScript), which sits beside the lock or store that uses it.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Redis } from 'ioredis';
import { luaOverrideDir } from '../env.js';
import { REPO_ROOT } from '../paths.js';

export const LUA_DIR = join(REPO_ROOT, 'lua');

interface LuaFile {
  name: string;
  numberOfKeys: number;
  lua: string;
}

let cached: Map<string, LuaFile> | undefined;

function luaFiles(): Map<string, LuaFile> {
  if (cached) return cached;
  const scripts = new Map<string, LuaFile>();
  const override = luaOverrideDir();
  const overridden = new Set(override ? readdirSync(override).filter((f) => f.endsWith('.lua')) : []);
  for (const file of readdirSync(LUA_DIR)
    .filter((f) => f.endsWith('.lua'))
    .sort()) {
    const lua = readFileSync(join(override && overridden.has(file) ? override : LUA_DIR, file), 'utf8');
    const header = /^--\s*keys:\s*(\d+)/.exec(lua);
    if (!header) throw new Error(`lua/${file} must start with "-- keys: N"`);
    const name = basename(file, '.lua');
    scripts.set(name, { name, numberOfKeys: Number(header[1]), lua });
  }
  cached = scripts;
  return scripts;
}

/** Defines every script as a command on this connection (once per connection). */
export function defineLuaScripts(client: Redis): void {
  for (const s of luaFiles().values()) {
    client.defineCommand(commandName(s.name), { numberOfKeys: s.numberOfKeys, lua: s.lua });
  }
}

type ScriptCommand = (...keysAndArgs: (string | number)[]) => Promise<unknown>;

/**
 * One lua/<name>.lua, its KEYS and ARGV named in their order: `run` takes them by name, so a key
 * or argument missing, extra or misnamed fails to compile, and `reply` turns the script's raw
 * answer into what it means.
 */
export interface LuaScript<K extends string, A extends string, R> {
  readonly name: string;
  run(client: Redis, keys: Readonly<Record<K, string>>, args: Readonly<Record<A, string | number>>): Promise<R>;
}

/**
 * Declares lua/<name>.lua's KEYS and ARGV, in order. Checked against the file when the module that
 * declares it loads: its `-- keys: N` header and the highest ARGV it reads must match the names.
 */
export function luaScript<const K extends readonly string[], const A extends readonly string[], R>(
  name: string,
  keys: K,
  args: A,
  reply: (raw: unknown) => R,
): LuaScript<K[number], A[number], R> {
  const script = luaFiles().get(name);
  if (!script) throw new Error(`no lua/${name}.lua`);
  if (script.numberOfKeys !== keys.length) throw new Error(`lua/${name}.lua takes ${script.numberOfKeys} keys, declared ${keys.length}`);
  const argc = Math.max(0, ...[...script.lua.matchAll(/ARGV\[(\d+)\]/g)].map((m) => Number(m[1])));
  if (argc !== args.length) throw new Error(`lua/${name}.lua reads ${argc} arguments, declared ${args.length}`);
  return {
    name,
    run: async (client, k, a) =>
      reply(
        await runLua(
          client,
          name,
          keys.map((key: K[number]) => k[key]),
          args.map((arg: A[number]) => a[arg]),
        ),
      ),
  };
}

/** Runs lua/<name>.lua on a connection made by connectRedis. */
function runLua(client: Redis, name: string, keys: string[], args: (string | number)[]): Promise<unknown> {
  const command = (client as unknown as Record<string, ScriptCommand | undefined>)[commandName(name)];
  if (!command) throw new Error(`lua/${name}.lua is not defined on this connection`);
  return command.call(client, ...keys, ...args);
}

/** Replies of scripts that answer 1 for yes and 0 for no. */
export const isOne = (raw: unknown): boolean => raw === 1;

// ioredis exposes defined commands as methods; prefix them so they never shadow a real command
// (exported for the incident gallery, which holds one script's calls back to order them).
export function commandName(script: string): string {
  return `lua_${script.replace(/[^a-zA-Z0-9]/g, '_')}`;
}
