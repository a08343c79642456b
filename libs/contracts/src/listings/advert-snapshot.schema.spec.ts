import example from './advert-snapshot.example.json';
import { validateSnapshot, type SnapshotValidationResult, type SnapshotViolation } from './advert-snapshot.schema';

const NOW = new Date('2026-03-01T12:00:00Z');

function validSnapshot(): Record<string, unknown> {
  return structuredClone(example) as Record<string, unknown>;
}

function violationsOf(result: SnapshotValidationResult): SnapshotViolation[] {
  if (result.ok) throw new Error('expected the snapshot to be rejected');
  return result.violations;
}

function pathsOf(result: SnapshotValidationResult): string[] {
  return violationsOf(result).map((v) => v.propertyPath);
}

describe('validateSnapshot', () => {
  describe('given the documented example', () => {
    it('when validated, then it is accepted and unknown $-keys are stripped', () => {
      // when
      const result = validateSnapshot(example, NOW);

      // then
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.snapshot.site).toBe('synthetic-portal-a');
      expect(result.snapshot).not.toHaveProperty('$comment');
    });
  });

  describe('given a location accuracy', () => {
    it('when it is 1 or 2, then it is kept; any other value is reported under location.accuracy', () => {
      for (const accuracy of [1, 2]) {
        const result = validateSnapshot({ ...validSnapshot(), location: { lat: 45.76, lon: 4.85, accuracy } }, NOW);
        expect(result.ok && result.snapshot.location?.accuracy).toBe(accuracy);
      }
      expect(pathsOf(validateSnapshot({ ...validSnapshot(), location: { lat: 45.76, lon: 4.85, accuracy: 3 } }, NOW))).toEqual(['location.accuracy']);
    });
  });

  describe('given a minimal snapshot', () => {
    it('when validated, then optional fields may be null or absent and arrays default to empty', () => {
      // given
      const minimal = {
        site: 's',
        siteCategory: 'portal',
        reference: 'R1',
        publisher: { name: 'P', category: 'individual', type: 0 },
        title: 't',
        description: 'd',
        price: 900,
        surface: null,
        propertyType: 3,
        transactionType: 1,
        commune: { zipcode: '75011', name: 'Paris' },
        seenAt: '2026-03-01T10:00:00Z',
      };

      // when
      const result = validateSnapshot(minimal, NOW);

      // then
      expect(result).toMatchObject({ ok: true, snapshot: { pictures: [], picturesRemote: [], features: [] } });
    });
  });

  describe('given absurd numbers', () => {
    it.each([
      ['negative price', { price: -5 }, 'price'],
      ['sale price above 100M', { price: 150_000_000 }, 'price'],
      ['sale price placeholder', { price: 1 }, 'price'],
      ['rent above 100k per month', { transactionType: 1, price: 250_000 }, 'price'],
      ['surface above 100,000 m²', { surface: 250_000 }, 'surface'],
      ['zero surface', { surface: 0 }, 'surface'],
      ['land surface above 1,000 ha', { landSurface: 20_000_000 }, 'landSurface'],
      ['fractional room count', { room: 2.5 }, 'room'],
      ['fees above 100 %', { feesPercentage: 140 }, 'feesPercentage'],
    ])('when the snapshot has a %s, then it is rejected at the field path', (_label, patch, path) => {
      // given
      const snapshot = { ...validSnapshot(), ...patch };

      // when
      const result = validateSnapshot(snapshot, NOW);

      // then
      expect(pathsOf(result)).toContain(path);
    });
  });

  describe('given unknown enum values', () => {
    it.each([
      ['propertyType', { propertyType: 7 }, 'propertyType'],
      ['transactionType', { transactionType: 2 }, 'transactionType'],
      ['publisher.type', { publisher: { name: 'x', category: 'agency', type: 2 } }, 'publisher.type'],
      ['feesResponsibility', { feesResponsibility: 3 }, 'feesResponsibility'],
      ['energy.category', { energy: { category: 'H', value: 100 } }, 'energy.category'],
      ['greenHouseGas.category', { greenHouseGas: { category: 'b', value: 10 } }, 'greenHouseGas.category'],
    ])('when %s is out of range, then the violation points at it', (_label, patch, path) => {
      const result = validateSnapshot({ ...validSnapshot(), ...patch }, NOW);

      expect(pathsOf(result)).toEqual([path]);
    });
  });

  describe('given malformed URLs', () => {
    it('when a picture, the url and the virtual tour are not http(s) URLs, then each is reported with its index', () => {
      // given
      const snapshot = {
        ...validSnapshot(),
        url: 'ftp://files.example/ad',
        pictures: ['https://img.example/1.jpg', 'not a url', 'javascript:alert(1)'],
        virtualTour: 'http://localhost/tour',
      };

      // when
      const paths = pathsOf(validateSnapshot(snapshot, NOW));

      // then
      expect(paths.sort()).toEqual(['pictures[1]', 'pictures[2]', 'url', 'virtualTour']);
    });
  });

  describe('given the clock', () => {
    it('when seenAt is within the 5-minute skew, then it is accepted', () => {
      const result = validateSnapshot({ ...validSnapshot(), seenAt: '2026-03-01T12:04:59Z' }, NOW);

      expect(result.ok).toBe(true);
    });

    it('when seenAt is further in the future, then seenAt is rejected', () => {
      const result = validateSnapshot({ ...validSnapshot(), seenAt: '2026-03-01T12:05:01Z' }, NOW);

      expect(violationsOf(result)).toEqual([{ propertyPath: 'seenAt', message: 'must not be in the future' }]);
    });

    it('when seenAt has no offset, then it is rejected as malformed', () => {
      const result = validateSnapshot({ ...validSnapshot(), seenAt: '2026-03-01T10:00:00' }, NOW);

      expect(pathsOf(result)).toEqual(['seenAt']);
    });
  });

  describe('given identity fields', () => {
    it('when both reference and url are missing, then the identity is reported', () => {
      const result = validateSnapshot({ ...validSnapshot(), reference: '  ', url: null }, NOW);

      expect(pathsOf(result)).toEqual(['reference']);
    });

    it('when only the url is present, then the snapshot is accepted', () => {
      const result = validateSnapshot({ ...validSnapshot(), reference: null }, NOW);

      expect(result.ok).toBe(true);
    });

    it('when the site is missing, then site is reported', () => {
      const { site: _site, ...withoutSite } = validSnapshot();

      expect(pathsOf(validateSnapshot(withoutSite, NOW))).toEqual(['site']);
    });
  });

  describe('given a commune', () => {
    it('when it has neither an INSEE code nor a zipcode and a name, then commune.insee is reported', () => {
      const result = validateSnapshot({ ...validSnapshot(), commune: { zipcode: '69003' } }, NOW);

      expect(pathsOf(result)).toEqual(['commune.insee']);
    });

    it('when it is a Corsican INSEE code, then it is accepted', () => {
      const result = validateSnapshot({ ...validSnapshot(), commune: { insee: '2A004' } }, NOW);

      expect(result.ok).toBe(true);
    });
  });

  describe('given several problems at once', () => {
    it('when validated, then shape and cross-field violations are reported together', () => {
      const result = validateSnapshot(
        { ...validSnapshot(), propertyType: 9, reference: null, url: null, seenAt: '2030-01-01T00:00:00Z' },
        NOW,
      );

      expect(pathsOf(result).sort()).toEqual(['propertyType', 'reference', 'seenAt']);
    });
  });

  describe('given something that is not an object', () => {
    it('when validated, then the root is reported', () => {
      expect(pathsOf(validateSnapshot('nope', NOW))).toEqual(['(root)']);
    });
  });
});
