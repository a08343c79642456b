import type { Violation } from '@immo/contracts';
import { listSearchesQuery, type ListSearchesQuery } from './list-searches-query';

function valueOf(query: Record<string, unknown>): ListSearchesQuery {
  const result = listSearchesQuery(query);
  if (!result.ok) throw new Error(`expected a valid query, got ${JSON.stringify(result.violations)}`);
  return result.value;
}

function violationsOf(query: Record<string, unknown>): Violation[] {
  const result = listSearchesQuery(query);
  if (result.ok) throw new Error(`expected violations, got ${JSON.stringify(result.value)}`);
  return result.violations;
}

describe('listSearchesQuery', () => {
  it('defaults to no filter, newest first with the id breaking ties, page 1', () => {
    const value = valueOf({});
    expect(value).toEqual({ filter: {}, sort: { createdAt: -1, _id: 1 }, page: 1, ignored: [] });
    expect(Object.keys(value.sort)).toEqual(['createdAt', '_id']);
  });

  it.each([
    ['true', true],
    ['1', true],
    [true, true],
    ['false', false],
    ['0', false],
    [false, false],
  ])('reads notificationEnabled=%j as %s', (given, expected) => {
    expect(valueOf({ notificationEnabled: given }).filter).toEqual({ notificationEnabled: expected });
  });

  it('ignores an empty notificationEnabled', () => {
    expect(valueOf({ notificationEnabled: '' }).filter).toEqual({});
  });

  it.each(['yes', 'TRUE', '2'])('refuses notificationEnabled=%j', (given) => {
    expect(violationsOf({ notificationEnabled: given })).toEqual([{ propertyPath: 'notificationEnabled', message: 'must be true or false' }]);
  });

  describe('initiatedFromDashboard', () => {
    it('selects the searches that say so', () => {
      expect(valueOf({ initiatedFromDashboard: 'true' }).filter).toEqual({ 'state.spec.initiatedFromDashboard': true });
    });

    it('counts a search stored without the field as not made from a dashboard', () => {
      expect(valueOf({ initiatedFromDashboard: '0' }).filter).toEqual({ 'state.spec.initiatedFromDashboard': { $ne: true } });
    });

    it('is read, not named as ignored, and refuses what is not a boolean', () => {
      expect(valueOf({ initiatedFromDashboard: '' })).toMatchObject({ filter: {}, ignored: [] });
      expect(violationsOf({ initiatedFromDashboard: 'yes' })).toEqual([{ propertyPath: 'initiatedFromDashboard', message: 'must be true or false' }]);
    });
  });

  describe('title', () => {
    it('reads a title of spaces as no filter, not as one matching everything', () => {
      const parsed = listSearchesQuery({ title: '   ' });
      expect(parsed.ok && parsed.value.filter).toEqual({});
    });

    it('filters titleFolded on the lower-cased, regex-escaped title', () => {
      expect(valueOf({ title: ' T2 (Paris) ' }).filter).toEqual({ titleFolded: { $regex: 't2 \\(paris\\)' } });
    });

    it('matches the title as a literal substring, not as a pattern', () => {
      const { filter } = valueOf({ title: 'a.b*[c]' });
      const pattern = new RegExp((filter['titleFolded'] as { $regex: string }).$regex);
      expect(pattern.test('x a.b*[c] y')).toBe(true);
      expect(pattern.test('axbbbc')).toBe(false);
    });

    it('ignores an empty title', () => {
      expect(valueOf({ title: '' }).filter).toEqual({});
    });

    it.each([
      ['an array', ['a', 'b']],
      ['201 characters', 'x'.repeat(201)],
    ])('refuses %s', (_kind, title) => {
      expect(violationsOf({ title })).toEqual([{ propertyPath: 'title', message: 'must be a text value of at most 200 characters' }]);
    });
  });

  describe('order', () => {
    it('sorts by title ascending, the id breaking ties', () => {
      const { sort } = valueOf({ order: { title: 'asc' } });
      expect(sort).toEqual({ titleFolded: 1, _id: 1 });
      expect(Object.keys(sort)).toEqual(['titleFolded', '_id']);
    });

    it('sorts by title descending', () => {
      expect(valueOf({ order: { title: 'desc' } }).sort).toEqual({ titleFolded: -1, _id: 1 });
    });

    it('refuses another direction under order[title]', () => {
      expect(violationsOf({ order: { title: 'up' } })).toEqual([{ propertyPath: 'order[title]', message: 'must be asc or desc' }]);
    });

    it('names other order keys as ignored and keeps the default sort', () => {
      const value = valueOf({ order: { createdAt: 'asc' } });
      expect(value.ignored).toEqual(['order[createdAt]']);
      expect(value.sort).toEqual({ createdAt: -1, _id: 1 });
    });

    it('names an order given as plain text as ignored', () => {
      expect(valueOf({ order: 'title' }).ignored).toEqual(['order']);
    });
  });

  it('returns unknown parameters in ignored', () => {
    const value = valueOf({ itemsPerPage: '10', foo: 'bar', order: { title: 'asc', price: 'desc' } });
    expect(value.ignored).toEqual(['itemsPerPage', 'foo', 'order[price]']);
    expect(value.filter).toEqual({});
  });

  describe('page', () => {
    it('reads a page number', () => {
      expect(valueOf({ page: '3' }).page).toBe(3);
    });

    it('treats an empty page as the first', () => {
      expect(valueOf({ page: '' }).page).toBe(1);
    });

    it.each(['0', '-1', '1.5', 'abc', '100001'])('refuses page=%j', (page) => {
      expect(violationsOf({ page })).toEqual([{ propertyPath: 'page', message: 'must be an integer from 1 to 100000' }]);
    });
  });

  it('lists every bad parameter at once', () => {
    expect(violationsOf({ notificationEnabled: 'maybe', title: ['x'], order: { title: 'sideways' }, page: '0' }).map((violation) => violation.propertyPath)).toEqual([
      'notificationEnabled',
      'title',
      'order[title]',
      'page',
    ]);
  });
});
