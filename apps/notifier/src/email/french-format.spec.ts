import { NARROW_NBSP, NBSP, counted, formatPercent, formatPrice, formatRooms, formatSurface, listed, quoted, shortened } from './french-format';

describe('French formatting of alert e-mails', () => {
  it('writes prices in whole euros with narrow no-break spaces between digit groups', () => {
    expect(formatPrice(274_550)).toBe(`274${NARROW_NBSP}550${NBSP}€`);
    expect(formatPrice(1_250_000.4)).toBe(`1${NARROW_NBSP}250${NARROW_NBSP}000${NBSP}€`);
  });

  it('writes surfaces, rooms and variations the French way', () => {
    expect(formatSurface(45)).toBe(`45${NBSP}m²`);
    expect(formatSurface(45.25)).toBe(`45,25${NBSP}m²`);
    expect(formatRooms(1)).toBe(`1${NBSP}pièce`);
    expect(formatRooms(4)).toBe(`4${NBSP}pièces`);
    expect(formatPercent(-5.2)).toBe(`-5,2${NBSP}%`);
    expect(formatPercent(3.33)).toBe(`+3,3${NBSP}%`);
  });

  it('puts no-break spaces inside guillemets and French plurals from 2', () => {
    expect(quoted('Lyon')).toBe(`«${NBSP}Lyon${NBSP}»`);
    expect(counted(0, 'bien', 'biens')).toBe(`0${NBSP}bien`);
    expect(counted(1, 'bien', 'biens')).toBe(`1${NBSP}bien`);
    expect(counted(2, 'bien', 'biens')).toBe(`2${NBSP}biens`);
  });

  it('lists with commas and a final "et"', () => {
    expect(listed([])).toBe('');
    expect(listed(['a'])).toBe('a');
    expect(listed(['a', 'b'])).toBe('a et b');
    expect(listed(['a', 'b', 'c'])).toBe('a, b et c');
  });

  it('shortens by characters, not UTF-16 units, and marks the cut', () => {
    expect(shortened('court', 10)).toBe('court');
    expect(shortened('Maison 🏡 avec jardin', 9)).toBe('Maison 🏡…');
  });
});
