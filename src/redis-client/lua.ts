// Lua scripts live in lua/*.lua, one a file. Each file's first line declares its key count
// (`-- keys: N`). They are read from disk once per process and defined on each connection, where
// ioredis runs them by SHA and sends the body only when the server does not have it yet.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';

export const LUA_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'lua');

export interface LuaScript {
  name: string;
  numberOfKeys: number;
  lua: string;
}

let cached: Map<string, LuaScript> | undefined;

export function luaScripts(): Map<string, LuaScript> {
  if (cached) return cached;
  const scripts = new Map<string, LuaScript>();
  for (const file of readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua')).sort()) {
    const lua = readFileSync(join(LUA_DIR, file), 'utf8');
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
  for (const s of luaScripts().values()) {
    client.defineCommand(commandName(s.name), { numberOfKeys: s.numberOfKeys, lua: s.lua });
  }
}

type ScriptCommand = (...keysAndArgs: (string | number)[]) => Promise<unknown>;

/** Runs lua/<name>.lua on a connection made by connectRedis. */
export function runLua(client: Redis, name: string, keys: string[], args: (string | number)[] = []): Promise<unknown> {
  const script = luaScripts().get(name);
  if (!script) throw new Error(`no lua/${name}.lua`);
  if (keys.length !== script.numberOfKeys) throw new Error(`lua/${name}.lua takes ${script.numberOfKeys} keys, got ${keys.length}`);
  const command = (client as unknown as Record<string, ScriptCommand | undefined>)[commandName(name)];
  if (!command) throw new Error(`lua/${name}.lua is not defined on this connection`);
  return command.call(client, ...keys, ...args);
}

// ioredis exposes defined commands as methods; prefix them so they never shadow a real command.
function commandName(script: string): string {
  return `lua_${script.replace(/[^a-zA-Z0-9]/g, '_')}`;
}
