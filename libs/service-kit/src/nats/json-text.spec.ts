import { JsonText, objectEndingWith } from './json-text';

describe('JsonText', () => {
  it('encodes text to UTF-8 once', () => {
    const json = new JsonText('{"ville":"Besançon"}');
    expect(new TextDecoder().decode(json.bytes)).toBe('{"ville":"Besançon"}');
    expect(json.bytes).toBe(json.bytes);
  });

  it('hands bytes it was given on as they are', () => {
    const bytes = new TextEncoder().encode('{"items":[]}');
    expect(new JsonText(bytes).bytes).toBe(bytes);
  });
});

describe('objectEndingWith', () => {
  it('closes an object around a last value given as UTF-8 JSON', () => {
    const object = objectEndingWith('{"pattern":"été","data":', new TextEncoder().encode('{"villes":["Besançon"]}'));
    expect(JSON.parse(new TextDecoder().decode(object))).toEqual({ pattern: 'été', data: { villes: ['Besançon'] } });
  });
});
