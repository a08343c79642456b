import fc from 'fast-check';
import type { YieldToEventLoop } from '../scheduling/event-loop-slice';
import { parseJsonInSlices } from './sliced-json-parse';

const goOn: YieldToEventLoop = () => undefined;

/** What `JSON.parse` says of a text: its value, or that it refused it. */
function parsedWhole(text: string): { value: unknown } | 'refused' {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return 'refused';
  }
}

async function parsedInSlices(text: string, pieceChars: number): Promise<{ value: unknown } | 'refused'> {
  try {
    return { value: await parseJsonInSlices(text, goOn, { minArrayChars: 0, pieceChars }) };
  } catch (error) {
    expect(error).toBeInstanceOf(SyntaxError);
    return 'refused';
  }
}

/** A JSON value with a long array somewhere in it (where slicing happens), written with or without spaces. */
const textWithArray = fc
  .tuple(fc.jsonValue({ maxDepth: 3 }), fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 30 }), fc.constantFrom(['snapshots'], ['data', 'snapshots'], []), fc.boolean())
  .map(([other, array, path, spaced]) => {
    let value: unknown = array;
    for (const key of [...path].reverse()) value = { [key]: value, other };
    return JSON.stringify(value, null, spaced ? 2 : undefined);
  });

describe('parseJsonInSlices', () => {
  it('gives what JSON.parse gives, however the array is cut', async () => {
    await fc.assert(
      fc.asyncProperty(textWithArray, fc.integer({ min: 0, max: 64 }), async (text, pieceChars) => {
        expect(await parsedInSlices(text, pieceChars)).toEqual(parsedWhole(text));
      }),
    );
  });

  it('refuses what JSON.parse refuses, and reads alike what it reads, when the text is damaged anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(textWithArray, fc.nat(), fc.constantFrom('', ',', ']', '[', '}', '"', '\\', ' ', '1'), fc.integer({ min: 0, max: 16 }), async (text, at, insert, pieceChars) => {
        const i = at % (text.length + 1);
        // Replace one character (or insert one at the end): a removed comma, an extra bracket, a broken string.
        const damaged = text.slice(0, i) + insert + text.slice(i + 1);
        expect(await parsedInSlices(damaged, pieceChars)).toEqual(parsedWhole(damaged));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses empty elements between cuts, which JSON does not allow', async () => {
    for (const text of ['[1,,2]', '[1,2,]', '[,1]', '{"a":[1, ,2]}']) {
      await expect(parseJsonInSlices(text, goOn, { minArrayChars: 0, pieceChars: 0 })).rejects.toBeInstanceOf(SyntaxError);
    }
    await expect(parseJsonInSlices('{"a":[ ]}', goOn, { minArrayChars: 0, pieceChars: 0 })).resolves.toEqual({ a: [] });
  });

  it('keeps a "__proto__" key that holds the array as an own field, as JSON.parse does', async () => {
    const text = '{"__proto__":[{"x":1},{"x":2}]}';
    const parsed = (await parseJsonInSlices(text, goOn, { minArrayChars: 0, pieceChars: 0 })) as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toEqual([{ x: 1 }, { x: 2 }]);
  });

  it('reads as JSON.parse does when a later duplicate key replaces the array, or the text nests deeper than the stack', async () => {
    const replaced = '{"a":[{"x":1},{"x":2}],"a":1}';
    expect(await parseJsonInSlices(replaced, goOn, { minArrayChars: 0, pieceChars: 0 })).toEqual({ a: 1 });
    const deep = `${'{"n":'.repeat(20_000)}[1,2,3]${'}'.repeat(20_000)}`;
    // Walked without recursion: a matcher would run out of stack too.
    let value = (await parseJsonInSlices(deep, goOn, { minArrayChars: 0, pieceChars: 0 })) as { n: unknown } | unknown[];
    let depth = 0;
    while (!Array.isArray(value)) {
      value = value.n as { n: unknown } | unknown[];
      depth++;
    }
    expect([depth, value]).toEqual([20_000, [1, 2, 3]]);
  });

  it('lets the event loop turn between pieces of a large batch', async () => {
    const snapshots = Array.from({ length: 1000 }, (_, i) => ({ url: `https://portal.example/annonces/${i}`, price: 100_000 + i, description: 'Appartement lumineux. '.repeat(40) }));
    const text = JSON.stringify({ pattern: 'listings.cmd.ingest-adverts.v1', id: 'r1', data: { snapshots } });
    let turns = 0;
    let timerRan = false;
    setImmediate(() => (timerRan = true));
    const everyTime: YieldToEventLoop = () => {
      turns++;
      return new Promise((resolve) => setImmediate(resolve));
    };
    const parsed = await parseJsonInSlices(text, everyTime);
    expect(parsed).toEqual(JSON.parse(text));
    // About 800 KB in 32 KB pieces.
    expect(turns).toBeGreaterThan(20);
    expect(timerRan).toBe(true);
  });

  it('parses a text without a large array whole, in one turn', async () => {
    const yieldSpy = jest.fn(goOn);
    expect(await parseJsonInSlices('{"snapshots":[{"a":1}]}', yieldSpy)).toEqual({ snapshots: [{ a: 1 }] });
    expect(yieldSpy).not.toHaveBeenCalled();
  });
});
