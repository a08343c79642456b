/**
 * `npm run demo:feed -- --rate N [--seed S] [--url URL]`: keeps a running stack busy with SYNTHETIC
 * advert changes (new adverts, recrawls, price drops and rises, pictures, expiries) through the
 * ingestion API, N snapshots a second, until Ctrl-C; a line of totals every few seconds.
 *
 * Finds the stack the way `npm start` leaves it: `http://127.0.0.1:$PORT` (default 3000) and the
 * admin key in `$DATA_DIR/admin-api-key` (default `.data/`); `--url` and `ADMIN_API_KEY` override.
 * Exit codes: 0 stopped, 1 the stack is unreachable or refused the feed, 2 bad arguments.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { MAX_FEED_RATE, startLiveFeed, type LiveFeedStats } from './live-feed';


const USAGE = `usage: npm run demo:feed -- --rate <snapshots per second> [--seed <integer>] [--url <gateway URL>]
  Sends synthetic advert changes to a running stack (npm start) until Ctrl-C.
  --rate   snapshots a second, e.g. 5 (fractions allowed: 0.5 is one every 2 s)
  --seed   PRNG seed, an integer in [0, 2^32); default 1 (references also carry the start time)
  --url    gateway base URL; default http://127.0.0.1:$PORT (PORT default 3000)
  The admin key is ADMIN_API_KEY, or read from $DATA_DIR/admin-api-key (DATA_DIR default .data).`;

const STATUS_EVERY_MS = 5_000;

class UsageError extends Error {}

interface FeedArgs {
  rate: number;
  seed: number | undefined;
  url: string | undefined;
}

function parseArgs(argv: readonly string[], maxRate: number): FeedArgs | 'help' {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') return 'help';
    const match = /^--(rate|seed|url)(?:=(.*))?$/.exec(arg);
    if (!match) throw new UsageError(`unknown argument "${arg}"`);
    const name = match[1] ?? '';
    const value = match[2] ?? argv[++i];
    if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
    if (values.has(name)) throw new UsageError(`--${name} is given twice`);
    values.set(name, value);
  }
  const rateText = values.get('rate');
  if (rateText === undefined) throw new UsageError('--rate is required (snapshots a second, e.g. --rate 5)');
  const rate = Number(rateText);
  if (!Number.isFinite(rate) || rate <= 0 || rate > maxRate) throw new UsageError(`--rate must be a number above 0 and at most ${maxRate}, not "${rateText}"`);
  const seedText = values.get('seed');
  const seed = seedText === undefined ? undefined : Number(seedText);
  if (seed !== undefined && (!/^\d+$/.test(seedText ?? '') || seed > 0xffffffff)) throw new UsageError(`--seed must be an integer from 0 to ${0xffffffff}, not "${seedText}"`);
  const url = values.get('url');
  if (url !== undefined && !isHttpUrl(url)) throw new UsageError(`--url must be an http(s) URL such as http://127.0.0.1:3000, not "${url}"`);
  return { rate, seed, url };
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** The checkout root, for `.data` as `npm start` uses it, whether run from dist/ or the sources. */
function repositoryRoot(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'nx.json'))) return dir;
  }
  return process.cwd();
}

function gatewayUrl(flag: string | undefined): string {
  if (flag !== undefined) return flag.replace(/\/+$/, '');
  const portText = process.env['PORT'] ?? '3000';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new UsageError(`PORT must be a TCP port (1-65535), not "${portText}"`);
  return `http://127.0.0.1:${port}`;
}

function adminApiKey(): string {
  const fromEnv = process.env['ADMIN_API_KEY']?.trim();
  if (fromEnv) return fromEnv;
  const file = join(resolve(process.env['DATA_DIR'] ?? join(repositoryRoot(), '.data')), 'admin-api-key');
  let key = '';
  try {
    key = readFileSync(file, 'utf8').trim();
  } catch {
    // reported below
  }
  if (key === '') throw new UsageError(`no admin key: ${file} is missing or empty; start the stack with npm start (same DATA_DIR) or set ADMIN_API_KEY`);
  return key;
}

async function gatewayAnswers(baseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/health/live`, { signal: AbortSignal.timeout(3_000) });
    return response.ok;
  } catch {
    return false;
  }
}

function statusLine(stats: LiveFeedStats, startedMs: number): string {
  const seconds = Math.max(1, (Date.now() - startedMs) / 1000);
  const kinds = Object.entries(stats.byKind)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  const time = new Date().toISOString().slice(11, 19);
  return `${time} sent ${stats.sent} (${(stats.sent / seconds).toFixed(1)}/s; accepted ${stats.accepted}, rejected ${stats.rejected}, retries ${stats.retries}): ${kinds}`;
}

async function main(argv: readonly string[]): Promise<number> {
  let args: FeedArgs;
  let baseUrl: string;
  let key: string;
  try {
    const parsed = parseArgs(argv, MAX_FEED_RATE);
    if (parsed === 'help') {
      console.log(USAGE);
      return 0;
    }
    args = parsed;
    baseUrl = gatewayUrl(args.url);
    key = adminApiKey();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`demo:feed: ${error.message}`);
    return 2;
  }
  if (!(await gatewayAnswers(baseUrl))) {
    console.error(`demo:feed: no gateway answers at ${baseUrl}/health/live; start the stack (npm start) or pass --url`);
    return 1;
  }

  console.log(`Feeding ${baseUrl} with ${args.rate} synthetic snapshots a second (seed ${args.seed ?? 1}); Ctrl-C stops.`);
  const startedMs = Date.now();
  const feed = startLiveFeed({ baseUrl, adminApiKey: key, rate: args.rate, seed: args.seed, log: (line) => console.log(line) });
  const status = setInterval(() => console.log(statusLine(feed.stats(), startedMs)), STATUS_EVERY_MS);
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted) process.exit(130); // a second Ctrl-C does not wait for the request under way
    interrupted = true;
    console.log(`\n${signal}: stopping the feed…`);
    void feed.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let code = 0;
  try {
    await feed.done;
  } catch (error) {
    console.error(`demo:feed: ${error instanceof Error ? error.message : String(error)}`);
    code = 1;
  }
  clearInterval(status);
  console.log(`Totals: ${statusLine(feed.stats(), startedMs)}`);
  return code;
}

void main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`demo:feed failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
