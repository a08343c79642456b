import { headerSafeName } from './ignored-parameters';

describe('headerSafeName', () => {
  it('keeps printable ASCII names as sent, brackets included', () => {
    expect(headerSafeName('order[price]')).toBe('order[price]');
    expect(headerSafeName('expressions[0][0][word]')).toBe('expressions[0][0][word]');
  });

  it('percent-encodes what a header cannot carry (newlines, emoji, accents) and % itself', () => {
    expect(headerSafeName('a\nb')).toBe('a%0Ab');
    expect(headerSafeName('😀')).toBe('%F0%9F%98%80');
    expect(headerSafeName('prixé')).toBe('prix%C3%A9');
    expect(headerSafeName('a%b')).toBe('a%25b');
    expect(headerSafeName('\ud800x')).toBe('%EF%BF%BDx');
  });

  it('gives only characters Node accepts in a header value', () => {
    for (const name of ['\u0000', '\r\n', '\u2028', '\uffff', 'x\u007f']) expect(headerSafeName(name)).toMatch(/^[\x20-\x7e]*$/);
  });
});
