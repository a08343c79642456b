/**
 * `npm run bench -- paris-time`: what showing a page of 30 property documents in Paris time costs
 * listings (`propertyDocumentInParisTime`, made when a document's text is read from the store, not
 * on pages served from the text cache), beside encoding the same page's JSON, which a read from
 * the store costs anyway. Documents of 3 adverts with 4 price changes each: 34 times apiece.
 */
import { performance } from 'node:perf_hooks';
import { propertyDocumentInParisTime, sampleAdvert, samplePropertyDocument, type PropertyDocument } from '@immo/contracts';
import type { Measurement, Scenario } from '@immo/testing';

const PAGE = 30;
const PAGES = 2_000;
const HOUR_MS = 3_600_000;
const encoder = new TextEncoder();
const utc = (ms: number) => new Date(ms).toISOString().slice(0, 19) + '+00:00';

/** A stored document (UTC) whose times fall in hours of its own from `startMs` on. */
function storedDocument(index: number, startMs: number): PropertyDocument {
  const at = (hours: number) => utc(startMs + (index * 50 + hours) * HOUR_MS + 1234_000);
  const adverts = [0, 1, 2].map((a) => ({
    ...sampleAdvert(),
    uuid: `00000000-0000-4000-8000-${String(index * 3 + a).padStart(12, '0')}`,
    createdAt: at(a),
    updatedAt: at(a + 10),
    lastCrawledAt: at(a + 20),
    expiredAt: a === 2 ? at(30) : null,
    events: [0, 1, 2, 3].map((e) => ({ fieldName: 'price', fieldOldValue: '300000', fieldNewValue: '289000', percentVariation: -3.67, createdAt: at(a + e + 4) })),
  }));
  return { ...samplePropertyDocument(), adverts, createdAt: at(0), updatedAt: at(12), lastCrawledAt: at(22), expiredAt: null };
}

function series(label: string, pages: PropertyDocument[][], work: (page: PropertyDocument[]) => unknown, baseline = false): Measurement {
  const samplesMs: number[] = [];
  let sink = 0;
  const started = performance.now();
  for (const page of pages) {
    const before = performance.now();
    const result = work(page);
    samplesMs.push(performance.now() - before);
    sink += Array.isArray(result) ? result.length : 1;
  }
  const wallMs = performance.now() - started;
  return { label, samplesMs, wallMs, baseline, notes: sink > 0 ? `${PAGE} documents a page` : '' };
}

const parisTime: Scenario = {
  name: 'paris-time',
  description: `a page of ${PAGE} property documents (34 times each) shown in Paris time, against encoding its JSON`,
  run: async () => {
    // Warm pages reuse the hours of a few days (the offset lookups cached); cold pages bring hours
    // never seen, each looked up with Intl once (the worst case: a first page after a start).
    const warmPages = Array.from({ length: PAGES }, (_, p) => Array.from({ length: PAGE }, (__, i) => storedDocument((p * 7 + i) % 60, Date.UTC(2026, 0, 1))));
    const coldPages = Array.from({ length: 200 }, (_, p) => Array.from({ length: PAGE }, (__, i) => storedDocument(p * PAGE + i, Date.UTC(1990, 0, 1))));
    const encodePage = (page: PropertyDocument[]) => page.map((document) => encoder.encode(JSON.stringify(document)));
    for (let i = 0; i < 200; i++) encodePage(warmPages[i] as PropertyDocument[]).forEach((bytes) => bytes.length);
    const measurements = [
      series('encode a page (JSON.stringify + UTF-8)', warmPages, encodePage, true),
      series('Paris time, warm offset cache', warmPages, (page) => page.map(propertyDocumentInParisTime)),
      series('Paris time + encode, warm', warmPages, (page) => encodePage(page.map(propertyDocumentInParisTime))),
      series('Paris time, hours never seen', coldPages, (page) => page.map(propertyDocumentInParisTime)),
    ];
    return Promise.resolve(measurements);
  },
};

export const benchScenarios: Scenario[] = [parisTime];
