import { MemberColumns, PagedNumbers, PagedValues, SortedSlots, type MemberStrings, type NumberColumn } from './member-columns';

const PAGE = 4096;

function numbersOf(price: number): Record<NumberColumn, number> {
  return { surface: price / 1000, landSurface: Number.NaN, room: 3, floor: 1, price, lat: 45, lon: 4 };
}

function stringsOf(i: number): MemberStrings {
  return { advertId: `a${i}`, propertyId: `p${i}`, site: 's', publisherName: 'x', energyCategory: i % 2 ? 'C' : null, expiredAt: null, bucketKey: `k${i % 7}` };
}

describe('PagedNumbers and PagedValues', () => {
  it('keeps every value across page boundaries as pages are added', () => {
    const numbers = new PagedNumbers();
    const values = new PagedValues<string>('');
    const count = 3 * PAGE + 5;
    for (let slot = 0; slot < count; slot++) {
      numbers.reserve(slot);
      values.reserve(slot);
      numbers.set(slot, slot * 1.5);
      values.set(slot, `v${slot}`);
    }
    for (const slot of [0, PAGE - 1, PAGE, 2 * PAGE + 7, count - 1]) {
      expect(numbers.get(slot)).toBe(slot * 1.5);
      expect(values.get(slot)).toBe(`v${slot}`);
    }
  });

  it('reads NaN and the empty value from reserved slots never written', () => {
    const numbers = new PagedNumbers();
    const values = new PagedValues<string | null>(null);
    numbers.reserve(PAGE + 1);
    values.reserve(PAGE + 1);
    expect(numbers.get(PAGE + 1)).toBeNaN();
    expect(numbers.get(0)).toBeNaN();
    expect(values.get(PAGE + 1)).toBeNull();
  });

  it('starts empty again after clear', () => {
    const numbers = new PagedNumbers();
    numbers.reserve(0);
    numbers.set(0, 7);
    numbers.clear();
    numbers.reserve(0);
    expect(numbers.get(0)).toBeNaN();
  });
});

describe('MemberColumns', () => {
  it('holds more members than a page, each with its own values', () => {
    const columns = new MemberColumns();
    const count = 2 * PAGE + 3;
    for (let i = 0; i < count; i++) columns.write(columns.allocate(`a${i}`), numbersOf(100_000 + i), i % 3 === 0, stringsOf(i));
    expect(columns.size).toBe(count);
    for (const i of [0, 1, PAGE, count - 1]) {
      const slot = columns.slotOf(`a${i}`) as number;
      expect(columns.numbers.price.get(slot)).toBe(100_000 + i);
      expect(columns.advertId.get(slot)).toBe(`a${i}`);
      expect(columns.energyCategory.get(slot)).toBe(i % 2 ? 'C' : null);
      expect(columns.isExpired(slot)).toBe(i % 3 === 0);
    }
  });

  it('reuses a released slot with nothing of its previous member left', () => {
    const columns = new MemberColumns();
    const first = columns.allocate('a1');
    columns.write(first, numbersOf(200_000), true, stringsOf(1));
    columns.release('a1');
    expect(columns.slotOf('a1')).toBeUndefined();
    const reused = columns.allocate('a2');
    expect(reused).toBe(first);
    expect(columns.numbers.price.get(reused)).toBeNaN();
    expect(columns.advertId.get(reused)).toBe('');
    expect(columns.isExpired(reused)).toBe(false);
  });
});

describe('SortedSlots', () => {
  it('finds, inserts and removes slots by their column value', () => {
    const values = new PagedNumbers();
    const order = new SortedSlots(values);
    const list: number[] = [];
    const surfaces = [50, 20, 80, 20, 35];
    surfaces.forEach((surface, slot) => {
      values.reserve(slot);
      values.set(slot, surface);
      order.insert(list, slot, surface);
    });
    expect(list.map((slot) => values.get(slot))).toEqual([20, 20, 35, 50, 80]);
    expect(order.lowerBound(list, 36)).toBe(3);
    order.remove(list, 3, 20);
    expect(list).toEqual([1, 4, 0, 2]);
  });
});
