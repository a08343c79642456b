import { propertyPageBytes, readPropertyPage } from './property-page-text';

describe('property page text', () => {
  const documents = [{ uuid: 'a', title: 'T2 "lumineux" {vue}' }, { uuid: 'b', title: 'Maison à Besançon 東京' }];
  const bytes = (text: string) => new TextEncoder().encode(text);
  const text = (json: Uint8Array) => new TextDecoder().decode(json);

  it('is the JSON of a ListPropertiesReply', () => {
    const page = propertyPageBytes(42, documents.map((d) => bytes(JSON.stringify(d))));
    expect(JSON.parse(text(page))).toEqual({ totalItems: 42, items: documents });
  });

  it('reads back the count and the documents as one JSON array, multi-byte characters included', () => {
    const { totalItems, items } = readPropertyPage(propertyPageBytes(42, documents.map((d) => bytes(JSON.stringify(d)))));
    expect(totalItems).toBe(42);
    expect(JSON.parse(text(items))).toEqual(documents);
  });

  it('writes one document and no document as valid JSON', () => {
    expect(JSON.parse(text(propertyPageBytes(1, [bytes('{"uuid":"a"}')])))).toEqual({ totalItems: 1, items: [{ uuid: 'a' }] });
    expect(JSON.parse(text(propertyPageBytes(0, [])))).toEqual({ totalItems: 0, items: [] });
  });

  it('reads an empty page and a large count', () => {
    const page = readPropertyPage(propertyPageBytes(123_456_789, []));
    expect(page.totalItems).toBe(123_456_789);
    expect(text(page.items)).toBe('[]');
  });

  it('reads a reply written another way (other key order, spacing) by parsing it', () => {
    const { totalItems, items } = readPropertyPage(bytes(JSON.stringify({ items: documents, totalItems: 7 }, null, 1)));
    expect(totalItems).toBe(7);
    expect(JSON.parse(text(items))).toEqual(documents);
  });
});
