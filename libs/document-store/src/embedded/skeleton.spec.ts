import { Query } from 'mingo';
import type { Filter, StoredDocument } from '../document-store.port';
import { MINGO_OPTIONS } from './mingo-context';
import { filterPaths, pathsCovered, projectSkeleton, skeletonOf, sortPaths } from './skeleton';

type Doc = StoredDocument & Record<string, unknown>;

function aDocument(): Doc {
  return {
    _id: 'p-1',
    revision: 7,
    title: 'T3 Lyon',
    price: 289_000,
    address: { city: 'Lyon', zipcode: '69003', geo: { lat: 45.76, lon: 4.85 } },
    photos: [
      { url: 'https://img.example/1.jpg', width: 800 },
      { url: 'https://img.example/2.jpg', width: 1024 },
    ],
    tags: ['balcon', 'cave'],
    createdAt: new Date('2026-03-01T10:00:00Z'),
  };
}

describe('skeletonOf', () => {
  it('given no index paths, when taking the skeleton, then only _id and revision are kept', () => {
    expect(skeletonOf(aDocument(), [])).toEqual({ _id: 'p-1', revision: 7 });
  });

  it('given top-level paths, when taking the skeleton, then exactly those fields are copied', () => {
    const skeleton = skeletonOf(aDocument(), ['price', 'tags']);

    expect(skeleton).toEqual({ _id: 'p-1', revision: 7, price: 289_000, tags: ['balcon', 'cave'] });
  });

  it('given a nested path, when taking the skeleton, then the value keeps its nesting and its siblings are left out', () => {
    const skeleton = skeletonOf(aDocument(), ['address.geo.lat']);

    expect(skeleton).toEqual({ _id: 'p-1', revision: 7, address: { geo: { lat: 45.76 } } });
  });

  it('given two paths through the same parent, when taking the skeleton, then both values sit under one parent', () => {
    const skeleton = skeletonOf(aDocument(), ['address.city', 'address.geo.lon', 'address.zipcode']);

    expect(skeleton).toEqual({ _id: 'p-1', revision: 7, address: { city: 'Lyon', zipcode: '69003', geo: { lon: 4.85 } } });
  });

  it.each([
    [['address', 'address.city']],
    [['address.city', 'address']],
  ])('given a path and a path below it (%j), when taking the skeleton, then the parent is kept whole whatever the order', (paths) => {
    const doc = aDocument();

    const skeleton = skeletonOf(doc, paths);

    expect(skeleton['address']).toEqual(doc['address']);
  });

  it('given a path through an array, when taking the skeleton, then the array is kept whole', () => {
    const doc = aDocument();

    const skeleton = skeletonOf(doc, ['photos.url']);

    // Cutting `width` out of each element would change what `photos` reads as; whole it stays.
    expect(skeleton['photos']).toEqual(doc['photos']);
  });

  it('given two paths through one array, when taking the skeleton, then the array is copied once, whole', () => {
    const doc = aDocument();

    const skeleton = skeletonOf(doc, ['photos.url', 'photos.width', 'photos.0.url']);

    expect(skeleton['photos']).toEqual(doc['photos']);
  });

  it('given a path through a scalar, when taking the skeleton, then the scalar is kept as on the document', () => {
    const skeleton = skeletonOf(aDocument(), ['price.amount']);

    expect(skeleton).toEqual({ _id: 'p-1', revision: 7, price: 289_000 });
  });

  it('given a non-plain object on the way, when taking the skeleton, then it is kept whole instead of being rebuilt as a plain object', () => {
    const skeleton = skeletonOf(aDocument(), ['createdAt.time']);

    expect(skeleton['createdAt']).toBeInstanceOf(Date);
    expect(skeleton['createdAt']).toEqual(new Date('2026-03-01T10:00:00Z'));
  });

  it.each([['missing'], ['missing.deeper']])(
    'given a top-level path the document lacks (%s), when taking the skeleton, then no key is created for it',
    (path) => {
      expect(Object.keys(skeletonOf(aDocument(), [path]))).toEqual(['_id', 'revision']);
    },
  );

  it.each([['address.country'], ['address.geo.alt']])(
    'given a nested path the document lacks (%s), when taking the skeleton, then neither the leaf nor its siblings are copied',
    (path) => {
      const skeleton = skeletonOf(aDocument(), [path]);

      expect(skeleton).not.toHaveProperty(path);
      expect(skeleton).not.toHaveProperty('address.city');
      expect(skeleton).not.toHaveProperty('address.geo.lat');
    },
  );

  it.each([['toString'], ['constructor'], ['valueOf']])(
    'given a path named like an inherited member (%s), when taking the skeleton, then nothing is copied from the prototype',
    (path) => {
      expect(Object.keys(skeletonOf(aDocument(), [path]))).toEqual(['_id', 'revision']);
    },
  );

  it('given a field present with a null value, when taking the skeleton, then null is kept (present, unlike missing)', () => {
    const skeleton = skeletonOf({ _id: 'a', revision: 1, expiresAt: null } as Doc, ['expiresAt']);

    expect(skeleton).toHaveProperty('expiresAt', null);
  });

  it('given a skeleton taken, when its nested objects are changed, then the source document is untouched', () => {
    const doc = aDocument();
    const skeleton = skeletonOf(doc, ['address.city', 'address.zipcode']);

    (skeleton['address'] as Record<string, unknown>)['city'] = 'Paris';

    expect((doc['address'] as Record<string, unknown>)['city']).toBe('Lyon');
    expect(Object.keys(doc['address'] as object)).toEqual(['city', 'zipcode', 'geo']);
  });

  it('given index paths that cover a filter, when the filter runs on the skeleton, then it matches exactly as on the full document', () => {
    const docs: Doc[] = [
      aDocument(),
      { ...aDocument(), _id: 'p-2', photos: [{ url: 'https://img.example/3.jpg', width: 300 }], address: { city: 'Paris' } },
      { ...aDocument(), _id: 'p-3', photos: [] },
      { _id: 'p-4', revision: 1 },
    ];
    const paths = ['photos.url', 'address.city', 'address.geo.lat'];
    const filters: Filter[] = [
      { 'photos.url': 'https://img.example/2.jpg' },
      { 'photos.url': { $exists: false } },
      { 'photos.url': { $size: 2 } },
      { 'address.city': 'Lyon', 'address.geo.lat': { $gt: 45 } },
      { $or: [{ 'address.city': 'Paris' }, { 'address.geo.lat': { $exists: false } }] },
    ];

    for (const filter of filters) {
      const read = filterPaths(filter);
      expect(read !== null && pathsCovered(read, paths)).toBe(true);
      const query = new Query(filter, MINGO_OPTIONS);
      const onDocuments = docs.filter((d) => query.test(d)).map((d) => d._id);
      const onSkeletons = docs.filter((d) => query.test(skeletonOf(d, paths))).map((d) => d._id);
      expect({ filter, ids: onSkeletons }).toEqual({ filter, ids: onDocuments });
    }
  });
});

describe('pathsCovered', () => {
  const covered = ['address.city', 'price', 'photos'];

  it('given no paths, when checking, then they are covered', () => {
    expect(pathsCovered([], covered)).toBe(true);
  });

  it('given _id and revision, when nothing is declared, then they are covered (every skeleton has them)', () => {
    expect(pathsCovered(['_id', 'revision'], [])).toBe(true);
  });

  it('given exactly the declared paths and paths below them, when checking, then they are covered', () => {
    expect(pathsCovered(['price', 'address.city', 'photos.url', 'photos.0.url'], covered)).toBe(true);
  });

  it('given a parent of a declared path, when checking, then it is not covered (its other children are not kept)', () => {
    expect(pathsCovered(['address'], covered)).toBe(false);
  });

  it('given a sibling of a declared path, when checking, then it is not covered', () => {
    expect(pathsCovered(['address.zipcode'], covered)).toBe(false);
  });

  it('given a field that merely starts with a declared name, when checking, then it is not covered', () => {
    expect(pathsCovered(['priceExcludingFees', 'photosCount'], covered)).toBe(false);
  });

  it('given one uncovered path among covered ones, when checking, then the whole set is not covered', () => {
    expect(pathsCovered(['price', '_id', 'title'], covered)).toBe(false);
  });

  it('given a one-shot iterable, when checking, then it is read', () => {
    function* paths(): Generator<string> {
      yield 'price';
      yield 'title';
    }

    expect(pathsCovered(paths(), covered)).toBe(false);
  });
});

describe('filterPaths', () => {
  it('given an empty filter, when listing paths, then there are none', () => {
    expect(filterPaths({})).toEqual([]);
  });

  it('given field conditions with operators, when listing paths, then each field is listed once and operators are not', () => {
    expect(filterPaths({ price: { $gte: 100, $lt: 200 }, 'address.city': 'Lyon', tags: { $elemMatch: { $eq: 'cave' } } })).toEqual([
      'price',
      'address.city',
      'tags',
    ]);
  });

  it('given $and, $or and $nor nested in each other, when listing paths, then the fields of every branch are listed', () => {
    const paths = filterPaths({
      $and: [{ price: { $gt: 1 } }, { $or: [{ 'address.city': 'Lyon' }, { $nor: [{ room: 3 }, { surface: { $lt: 10 } }] }] }],
      title: 'x',
    });

    expect(paths).not.toBeNull();
    expect([...(paths ?? [])].sort()).toEqual(['address.city', 'price', 'room', 'surface', 'title']);
  });

  it('given $comment, when listing paths, then it is ignored and the filter stays describable', () => {
    expect(filterPaths({ $comment: 'why this query', price: 1 })).toEqual(['price']);
    expect(filterPaths({ $or: [{ $comment: 'inner' }, { room: 2 }] })).toEqual(['room']);
  });

  it.each([
    ['$expr', { $expr: { $gt: ['$price', '$surface'] } }],
    ['$where', { $where: 'this.price > 1' }],
    ['$text', { $text: { $search: 'lyon' } }],
    ['$jsonSchema', { $jsonSchema: {} }],
  ])('given %s at the top level, when listing paths, then the answer is null', (_name, filter) => {
    expect(filterPaths({ price: 1, ...filter })).toBeNull();
  });

  it.each([
    ['$and', { $and: [{ price: 1 }, { $expr: { $eq: ['$a', 1] } }] }],
    ['$or', { $or: [{ $where: 'true' }] }],
    ['$nor', { $nor: [{ room: 1 }, { $and: [{ $expr: true }] }] }],
  ])('given $expr or $where deep inside %s, when listing paths, then the answer is null', (_name, filter) => {
    expect(filterPaths(filter)).toBeNull();
  });

  it.each([
    ['not an array', { $and: { price: 1 } }],
    ['a branch that is a scalar', { $or: [{ price: 1 }, 3] }],
    ['a branch that is an array', { $nor: [[{ price: 1 }]] }],
    ['a branch that is null', { $and: [null] }],
  ])('given a logical operator with %s, when listing paths, then the answer is null', (_name, filter) => {
    expect(filterPaths(filter as Filter)).toBeNull();
  });

  it('given an empty $or, when listing paths, then there are none (and it is not refused)', () => {
    expect(filterPaths({ $or: [] })).toEqual([]);
  });
});

describe('sortPaths', () => {
  it('given no sort, when listing paths, then there are none', () => {
    expect(sortPaths(undefined)).toEqual([]);
  });

  it('given a compound sort, when listing paths, then they come in sort order', () => {
    expect(sortPaths({ createdAtMs: -1, _id: 1, 'address.city': 1 })).toEqual(['createdAtMs', '_id', 'address.city']);
  });
});

describe('projectSkeleton', () => {
  const skeleton = skeletonOf({ _id: 'a', revision: 3, state: { propertyId: 'p', other: 1 }, createdAtMs: 5 } as StoredDocument, ['state.propertyId', 'createdAtMs']);

  it('given covered paths, when projected, then only _id and those paths are kept', () => {
    expect(projectSkeleton(skeleton, ['state.propertyId'])).toEqual({ _id: 'a', state: { propertyId: 'p' } });
    expect(projectSkeleton(skeleton, ['_id'])).toEqual({ _id: 'a' });
  });

  it('given a projection, when its result is changed, then the skeleton is not', () => {
    const projected = projectSkeleton(skeleton, ['createdAtMs']);
    projected['createdAtMs'] = 99;
    expect(skeleton['createdAtMs']).toBe(5);
  });
});
