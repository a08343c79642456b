/**
 * `npm run tour [-- --url <base URL>]`: runs the tour (see tour.ts) against a running stack.
 * The stack: `--url`, else http://127.0.0.1:$PORT (3000). The keys: API_KEY and ADMIN_API_KEY,
 * else the files `npm start` writes, DATA_DIR/api-key and DATA_DIR/admin-api-key (DATA_DIR `.data`).
 * Exit codes: 0 done, 1 failed (one line on stderr says why), 2 bad arguments, 130 Ctrl-C.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runTour, summaryLine, TourError } from './tour';

const USAGE = `usage: npm run tour [-- --url http://127.0.0.1:3000]
  Against a running stack (npm start): saves a search, watches its live stream, ingests a new flat
  and its price drop, shows both alerts arriving, then deletes the search.
  Keys: API_KEY and ADMIN_API_KEY, else DATA_DIR/api-key and DATA_DIR/admin-api-key (DATA_DIR: .data).`;

function parseArgs(argv: string[]): { url: string | null } | { problem: string } | 'help' {
  let url: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--url' && argv[i + 1] !== undefined) url = argv[++i] as string;
    else if (arg.startsWith('--url=')) url = arg.slice('--url='.length);
    else return { problem: `unknown argument "${arg}"` };
  }
  if (url !== null && !/^https?:\/\/[^/]/.test(url)) return { problem: `--url must be an http(s) URL, not "${url}"` };
  return { url };
}

/** An environment variable wins over the file `npm start` wrote. */
function readKey(variable: string, file: string): string | null {
  const fromEnv = process.env[variable]?.trim();
  if (fromEnv) return fromEnv;
  if (!existsSync(file)) return null;
  return readFileSync(file, 'utf8').trim() || null;
}

/** The local inbox `npm start` runs without SMTP_URL (INBOX_URL, else PORT + 80), when it answers. */
async function localInbox(): Promise<string | null> {
  const url = process.env['INBOX_URL'] ?? `http://127.0.0.1:${Number(process.env['PORT'] ?? 3000) + 80}`;
  try {
    return (await fetch(`${url}/api/email`, { signal: AbortSignal.timeout(2_000) })).ok ? url : null;
  } catch {
    return null;
  }
}

export async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args === 'help') {
    console.log(USAGE);
    return 0;
  }
  if ('problem' in args) {
    console.error(`error: ${args.problem}\n${USAGE}`);
    return 2;
  }
  const baseUrl = args.url ?? `http://127.0.0.1:${process.env['PORT'] ?? 3000}`;
  const dataDir = process.env['DATA_DIR'] ?? '.data';
  const apiKey = readKey('API_KEY', join(dataDir, 'api-key'));
  const adminApiKey = readKey('ADMIN_API_KEY', join(dataDir, 'admin-api-key'));
  if (!apiKey || !adminApiKey) {
    const missing = !apiKey ? `API_KEY is unset and ${join(dataDir, 'api-key')}` : `ADMIN_API_KEY is unset and ${join(dataDir, 'admin-api-key')}`;
    console.error(`error: ${missing} does not exist: start the stack with npm start (it writes the keys), or set API_KEY and ADMIN_API_KEY`);
    return 1;
  }

  // Ctrl-C ends the tour early but still deletes its search; a second Ctrl-C leaves at once.
  const interrupt = new AbortController();
  process.once('SIGINT', () => {
    console.log('\ninterrupted: deleting the search (Ctrl-C again to leave at once)');
    interrupt.abort();
    process.once('SIGINT', () => process.exit(130));
  });

  try {
    const inboxUrl = await localInbox();
    const result = await runTour({ baseUrl, apiKey, adminApiKey, dataDir, inboxUrl, signal: interrupt.signal, out: (line) => console.log(line) });
    console.log(summaryLine(result));
    return 0;
  } catch (error) {
    if (interrupt.signal.aborted) return 130;
    if (error instanceof TourError) console.error(`error: ${error.message}`);
    else console.error(error);
    return 1;
  }
}

void main(process.argv.slice(2)).then((code) => process.exit(code));
