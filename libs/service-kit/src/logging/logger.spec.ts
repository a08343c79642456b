import { PassThrough } from 'node:stream';
import { Logger, type LogLevel } from '@nestjs/common';
import { configureLogging, createLogger, pinoLevelOf, resolveLogFormat } from './logger';
import { requestContextOf, runInRequestContext } from './request-context';

/** A destination keeping each line written. */
function capture(): { write(line: string): void; lines: string[]; json(): Record<string, unknown>[] } {
  const lines: string[] = [];
  return {
    lines,
    write: (line) => void lines.push(line),
    json: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('log format', () => {
  it('is pretty on a terminal and JSON anywhere else, unless LOG_FORMAT says', () => {
    expect(resolveLogFormat(undefined, true)).toBe('pretty');
    expect(resolveLogFormat(undefined, false)).toBe('json');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('pretty', false)).toBe('pretty');
  });

  it('writes one JSON object per line, naming the app and the level', () => {
    const out = capture();
    createLogger({ name: 'listings', level: 'log', format: 'json', destination: out }).info({ context: 'Ingestion' }, 'batch stored');
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0]?.endsWith('\n')).toBe(true);
    expect(out.json()[0]).toMatchObject({ level: 'info', name: 'listings', context: 'Ingestion', msg: 'batch stored', pid: process.pid });
    expect(Date.parse(String(out.json()[0]?.['time']))).not.toBeNaN();
  });

  it('writes text for people when pretty', async () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    createLogger({ name: 'geo', level: 'log', format: 'pretty', destination: stream }).info({ context: 'Geo' }, 'communes loaded');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(text).toMatch(/INFO.*\(geo\).*\[Geo\] communes loaded/);
    expect(() => JSON.parse(text)).toThrow();
  });
});

describe('log levels', () => {
  it('maps LOG_LEVEL to pino levels', () => {
    const levels: LogLevel[] = ['error', 'warn', 'log', 'debug', 'verbose'];
    expect(levels.map(pinoLevelOf)).toEqual(['error', 'warn', 'info', 'debug', 'trace']);
  });

  it.each([
    ['error', ['error']],
    ['warn', ['error', 'warn']],
    ['log', ['error', 'warn', 'info']],
    ['debug', ['error', 'warn', 'info', 'debug']],
    ['verbose', ['error', 'warn', 'info', 'debug', 'trace']],
  ] as [LogLevel, string[]][])('at %s writes %j', (level, written) => {
    const out = capture();
    const nest = configureLogging('test', { LOG_LEVEL: level, LOG_FORMAT: 'json' }, { destination: out });
    nest.verbose('v');
    nest.debug('d');
    nest.log('l');
    nest.warn('w');
    nest.error('e');
    expect(out.json().map((line) => line['level'])).toEqual([...written].reverse());
  });
});

describe("Nest's Logger through pino", () => {
  let out: ReturnType<typeof capture>;

  beforeEach(() => {
    out = capture();
    configureLogging('searches', { LOG_LEVEL: 'log', LOG_FORMAT: 'json' }, { destination: out });
  });

  it('turns a named Logger into the context of a structured line', () => {
    new Logger('AlertMatcher').log('matched 3 searches');
    new Logger('AlertMatcher').warn('slow batch');
    expect(out.json()).toEqual([
      expect.objectContaining({ level: 'info', name: 'searches', context: 'AlertMatcher', msg: 'matched 3 searches' }),
      expect.objectContaining({ level: 'warn', context: 'AlertMatcher', msg: 'slow batch' }),
    ]);
  });

  it('keeps the stack of an error apart from its message', () => {
    const error = new Error('store closed');
    new Logger('Projections').error('commit failed', error.stack);
    new Logger('Projections').error('no stack');
    Logger.error(error);
    const [withStack, withoutStack, fromError] = out.json();
    expect(withStack).toMatchObject({ level: 'error', context: 'Projections', msg: 'commit failed', err: { stack: error.stack } });
    expect(withoutStack).toMatchObject({ context: 'Projections', msg: 'no stack' });
    expect(withoutStack).not.toHaveProperty('err');
    expect(fromError).toMatchObject({ msg: 'store closed', err: { message: 'store closed', stack: expect.stringContaining('store closed') } });
  });

  it('merges an object message into the line', () => {
    new Logger('Relay').log({ published: 12, outbox: 'listings' });
    expect(out.json()[0]).toMatchObject({ context: 'Relay', published: 12, outbox: 'listings' });
  });

  it('adds the request id to every line written while handling a request', async () => {
    await runInRequestContext(requestContextOf('req-42'), async () => {
      new Logger('Handler').log('before');
      await new Promise((resolve) => setTimeout(resolve, 5));
      new Logger('Handler').log('after a pause');
    });
    new Logger('Handler').log('outside');
    expect(out.json().map((line) => line['requestId'])).toEqual(['req-42', 'req-42', undefined]);
  });
});

describe('redaction', () => {
  it('never writes API keys, authorization headers, secrets, tokens or bodies', () => {
    const out = capture();
    const logger = createLogger({ name: 'gateway', level: 'log', format: 'json', destination: out });
    logger.info(
      {
        headers: { 'x-api-key': 'imk_key_s3cr3t', authorization: 'Bearer t0ken' },
        req: { headers: { 'x-api-key': 'imk_key_s3cr3t2' } },
        apiKey: 'imk_key_s3cr3t3',
        account: { secret: 'whsec_abc' },
        secret: 'whsec_def',
        delivery: { payload: '{"match":1}', headers: { 'webhook-signature': 'v1,sig' } },
        searchToken: 'tok',
        body: { snapshots: [] },
        route: '/searches/:id',
      },
      'request',
    );
    const line = out.lines.join('');
    for (const secret of ['s3cr3t', 't0ken', 'whsec_', '"match"', 'v1,sig', '"tok"', 'snapshots']) expect(line).not.toContain(secret);
    expect(out.json()[0]).toMatchObject({ route: '/searches/:id', apiKey: '[redacted]', secret: '[redacted]' });
  });
});
