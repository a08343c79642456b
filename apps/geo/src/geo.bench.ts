import { resolve } from 'node:path';
import { GEO_SUBJECTS } from '@immo/contracts';
import { connectNats, NatsRpcClient } from '@immo/service-kit';
import { withTemporaryStack } from '@immo/stack';
import { httpGet, timeSeries, type Measurement, type Scenario } from '@immo/testing';
import { benchAutocomplete } from './domain/autocomplete.bench';
import { buildAutocompleteIndex, createPoiSource, getCityDirectory } from './domain';
import { GeoQueriesController } from './geo-queries.controller';

const ROOT = resolve(__dirname, '..', '..', '..', '..');

function sync(label: string, count: number, operation: (i: number) => unknown): Measurement {
  const samplesMs: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    operation(i);
    samplesMs.push(performance.now() - t0);
  }
  return { label, samplesMs, wallMs: performance.now() - started };
}

function controller(): GeoQueriesController {
  const directory = getCityDirectory();
  return new GeoQueriesController(directory, buildAutocompleteIndex(directory), createPoiSource(directory));
}

const lookups: Scenario = {
  name: 'geo-lookups',
  description: 'geo lookups inside the service on a warm index (target: autocomplete p99 ≤ 5 ms, lookups < 1 ms)',
  async run() {
    const geo = controller();
    const directory = getCityDirectory();
    const cities = directory.entries.map((entry) => entry.city);
    const pick = (i: number) => cities[(i * 7919) % cities.length]!;
    const autocomplete = await benchAutocomplete();
    return [
      { label: 'autocomplete (4000 varied queries)', samplesMs: autocomplete.samplesMs, wallMs: autocomplete.samplesMs.reduce((a, b) => a + b, 0) },
      sync('city by id', 20000, (i) => geo.cityById({ id: pick(i).id })),
      sync('city by INSEE', 20000, (i) => geo.cityByInsee({ insee: pick(i).insee })),
      sync('cities by postal code', 20000, (i) => geo.citiesByZipcode({ zipcode: pick(i).zipcode ?? '75015' })),
      sync('city by postal code + name', 20000, (i) => {
        const city = pick(i);
        return city.zipcode ? geo.cityByZipcodeAndName({ zipcode: city.zipcode, name: city.name.toUpperCase() }) : null;
      }),
      sync('nearest commune to a point', 20000, (i) => {
        const point = pick(i).locations;
        return point ? directory.nearestCity(point.lat + 0.003, point.lon - 0.002) : null;
      }),
      sync('department by id', 20000, (i) => geo.department({ id: (i % 95) + 1 === 20 ? 1 : (i % 95) + 1 })),
    ];
  },
};

const roundTrip: Scenario = {
  name: 'rpc-round-trip',
  description: 'GET /departments/75 through gateway → NATS → geo, against the same handler called in-process',
  async run() {
    const geo = controller();
    return withTemporaryStack(ROOT, async (stack) => {
      const nats = await connectNats({ NATS_URL: stack.natsUrl, NATS_CONNECT_TIMEOUT_MS: 2000 }, { name: 'bench', principal: null });
      try {
        const rpc = new NatsRpcClient(nats, 2000);
        const headers = { 'X-API-KEY': stack.apiKey };
        const http = async () => {
          const response = await httpGet(`${stack.baseUrl}/departments/75`, headers);
          if (response.status !== 200) throw new Error(`unexpected status ${response.status}`);
        };
        // Warm up every path before measuring.
        for (let i = 0; i < 300; i++) await http();
        const inProcess = sync('in-process handler call', 20000, () => geo.department({ id: 75 }));
        inProcess.baseline = true;
        return [
          inProcess,
          await timeSeries('NATS request/reply to geo', 3000, 1, () => rpc.request(GEO_SUBJECTS.department, { id: 75 })),
          await timeSeries('HTTP via gateway, concurrency 1', 3000, 1, http),
          await timeSeries('HTTP via gateway, concurrency 8', 6000, 8, http),
        ];
      } finally {
        await nats.drain();
      }
    });
  },
};

export const benchScenarios: Scenario[] = [roundTrip, lookups];
