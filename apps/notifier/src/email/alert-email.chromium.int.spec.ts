import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { matchIri, samplePropertyDocument, webhookPropertyDocument, type EventPayload, type MatchPayload, type PropertyDocument } from '@immo/contracts';
import { executableOnPath } from '@immo/testing';
import { renderAlertEmail } from './alert-email';

const chromium = executableOnPath('chromium');
if (chromium === null) process.stdout.write('skipped: chromium not on PATH (the alert e-mail in a real browser)\n');
const inChromium = chromium === null ? it.skip : it;
const skipped = chromium === null ? ' (skipped: chromium not on PATH)' : '';

/** A decoded 8-bit RGB or RGBA PNG (what Chromium's screenshots are), as pixels to look at. */
interface Picture {
  width: number;
  height: number;
  /** `#rrggbb` of the pixel at (x, y). */
  at(x: number, y: number): string;
}

const paeth = (left: number, up: number, upLeft: number) => {
  const estimate = left + up - upLeft;
  const [toLeft, toUp, toUpLeft] = [Math.abs(estimate - left), Math.abs(estimate - up), Math.abs(estimate - upLeft)];
  return toLeft <= toUp && toLeft <= toUpLeft ? left : toUp <= toUpLeft ? up : upLeft;
};

/** PNG decoding with node:zlib alone: the chunks, the inflated image data, each scanline unfiltered (PNG spec, section 9). */
function decodePng(file: Buffer): Picture {
  expect(file.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  for (let at = 8; at < file.length; ) {
    const length = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    const body = file.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [bitDepth, colourType, , , interlace] = [body[8], body[9], body[10], body[11], body[12]];
      if (bitDepth !== 8 || (colourType !== 2 && colourType !== 6) || interlace !== 0) throw new Error(`unexpected PNG format: depth ${bitDepth}, colour type ${colourType}, interlace ${interlace}`);
      channels = colourType === 6 ? 4 : 3;
    }
    if (type === 'IDAT') data.push(body);
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let i = 0; i < stride; i++) {
      const value = raw[y * (stride + 1) + 1 + i]!;
      const left = i >= channels ? pixels[y * stride + i - channels]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + i]! : 0;
      const upLeft = y > 0 && i >= channels ? pixels[(y - 1) * stride + i - channels]! : 0;
      const predicted = [0, left, up, Math.floor((left + up) / 2), paeth(left, up, upLeft)][filter!];
      if (predicted === undefined) throw new Error(`unknown PNG filter ${filter} on row ${y}`);
      pixels[y * stride + i] = (value + predicted) & 0xff;
    }
  }
  return {
    width,
    height,
    at(x, y) {
      const offset = y * stride + x * channels;
      return `#${[0, 1, 2].map((c) => pixels[offset + c]!.toString(16).padStart(2, '0')).join('')}`;
    },
  };
}

function screenshot(executable: string, htmlFile: string, pngFile: string, profile: string, width: number, height: number): Promise<void> {
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--hide-scrollbars',
    '--force-device-scale-factor=1',
    // The e-mail is a local file: no request may leave the machine.
    '--host-resolver-rules=MAP * ~NOTFOUND',
    `--user-data-dir=${profile}`,
    `--window-size=${width},${height}`,
    `--screenshot=${pngFile}`,
    `file://${htmlFile}`,
  ];
  return new Promise((resolve, reject) => {
    execFile(executable, args, { timeout: 60_000 }, (error, _stdout, stderr) => (error ? reject(new Error(`chromium failed: ${error.message}\n${stderr}`)) : resolve()));
  });
}

function matchOf(document: PropertyDocument, createdAt: string): MatchPayload {
  return {
    '@context': '/contexts/Match',
    '@id': matchIri(`5e0c2a8b-7d41-4f3e-9a6c-${document.uuid.slice(-12)}`),
    '@type': 'Match',
    property: `/documents/properties/${document.uuid}`,
    search: '/searches/a1b2c3d4-1111-4aaa-8bbb-000000000001',
    createdAt,
    updatedAt: createdAt,
    propertyDocument: webhookPropertyDocument(document, true),
  };
}

/** Two new properties and a price drop: every kind of block, without pictures (they would need the network). */
function anAlertEmailHtml(): string {
  const flat = samplePropertyDocument('0b6f7a1e-3c2d-4e5f-8a9b-000000000001');
  const house = { ...samplePropertyDocument('0b6f7a1e-3c2d-4e5f-8a9b-000000000002'), title: 'Maison 5 pièces avec jardin', propertyType: 1, price: 435_000, surface: 118, room: 5 };
  const dropped = { ...samplePropertyDocument('0b6f7a1e-3c2d-4e5f-8a9b-000000000003'), title: 'Studio proche gare Part-Dieu', price: 139_000, surface: 24, room: 1 };
  const drop: EventPayload = {
    event: 'ad.update.price',
    adEvent: { fieldName: 'price', fieldOldValue: '149000', fieldNewValue: '139000', percentVariation: '-6.71', createdAt: '2026-03-05T09:00:00Z' },
    match: matchOf(dropped, '2026-03-05T09:00:00Z'),
  };
  return renderAlertEmail({
    searchTitle: 'Appartements Lyon 3e',
    unsubscribeUrl: 'https://alerts.example.com/public/search/disable-notifications?searchToken=tok-123',
    items: [
      { kind: 'match', payload: JSON.stringify(matchOf(flat, '2026-03-05T08:00:00Z')), createdAt: '2026-03-05T08:00:00Z' },
      { kind: 'match', payload: JSON.stringify(matchOf(house, '2026-03-05T08:30:00Z')), createdAt: '2026-03-05T08:30:00Z' },
      { kind: 'ad.update.price', payload: JSON.stringify(drop), createdAt: '2026-03-05T09:00:00Z' },
    ],
  }).html;
}

const PAGE_BACKGROUND = '#f2f4f7';
const CARD = '#ffffff';
const BUTTON = '#1d4ed8';

describe('alert e-mail HTML in headless Chromium', () => {
  let dir = '';
  let htmlFile = '';

  beforeAll(() => {
    if (chromium === null) return;
    dir = mkdtempSync(join(tmpdir(), 'alert-email-chromium-'));
    htmlFile = join(dir, 'alert.html');
    writeFileSync(htmlFile, anAlertEmailHtml());
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function render(width: number, height: number): Promise<Picture> {
    const png = join(dir, `alert-${width}.png`);
    await screenshot(chromium!, htmlFile, png, join(dir, `profile-${width}`), width, height);
    return decodePng(readFileSync(png));
  }

  function colours(picture: Picture): Map<string, number> {
    const counts = new Map<string, number>();
    for (let y = 0; y < picture.height; y++) for (let x = 0; x < picture.width; x++) counts.set(picture.at(x, y), (counts.get(picture.at(x, y)) ?? 0) + 1);
    return counts;
  }

  inChromium(`draws the card, its text and its buttons on a desktop-wide window${skipped}`, async () => {
    const picture = await render(800, 1400);
    expect([picture.width, picture.height]).toEqual([800, 1400]);
    const counts = colours(picture);
    // A blank or unstyled page has one or two colours; anti-aliased text gives dozens.
    expect(counts.size).toBeGreaterThan(50);
    expect(counts.get(PAGE_BACKGROUND) ?? 0).toBeGreaterThan(10_000);
    expect(counts.get(CARD) ?? 0).toBeGreaterThan(100_000);
    // Three "Voir l'annonce" buttons.
    expect(counts.get(BUTTON) ?? 0).toBeGreaterThan(3 * 1_000);
    const dark = [...counts.entries()].filter(([colour]) => parseInt(colour.slice(1, 3), 16) < 80).reduce((sum, [, count]) => sum + count, 0);
    expect(dark).toBeGreaterThan(2_000);
    // 600 px at most: centred with the page background on both sides.
    expect(picture.at(60, 200)).toBe(PAGE_BACKGROUND);
    expect(picture.at(740, 200)).toBe(PAGE_BACKGROUND);
    expect(picture.at(110, 200)).toBe(CARD);
  }, 90_000);

  inChromium(`fits a phone-wide window without overflowing it${skipped}`, async () => {
    const picture = await render(375, 1600);
    const row = 40;
    // The card fills the width but for the 12 px margins: nothing wider than the screen.
    expect(picture.at(4, row)).toBe(PAGE_BACKGROUND);
    expect(picture.at(20, row)).toBe(CARD);
    expect(picture.at(355, row)).toBe(CARD);
    expect(picture.at(370, row)).toBe(PAGE_BACKGROUND);
    expect(colours(picture).get(BUTTON) ?? 0).toBeGreaterThan(3 * 1_000);
  }, 90_000);
});
