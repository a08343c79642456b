import { COHERENT_PRICE_PER_METER, hasCoherentPrice } from './coherent-price';
import { PROPERTY_TYPES, TRANSACTION_TYPES } from '@immo/contracts';

describe('coherent price per m²', () => {
  it('has a band for every transaction and property type of the spec', () => {
    for (const transactionType of TRANSACTION_TYPES) {
      for (const propertyType of PROPERTY_TYPES) {
        const band = COHERENT_PRICE_PER_METER[transactionType][propertyType];
        expect(band.min).toBeGreaterThan(0);
        expect(band.max).toBeGreaterThan(band.min);
      }
    }
  });

  it('keeps a flat for sale between 500 and 30,000 €/m², bounds included', () => {
    expect(hasCoherentPrice({ transactionType: 0, propertyType: 0, pricePerMeter: 500 })).toBe(true);
    expect(hasCoherentPrice({ transactionType: 0, propertyType: 0, pricePerMeter: 30_000 })).toBe(true);
    expect(hasCoherentPrice({ transactionType: 0, propertyType: 0, pricePerMeter: 499 })).toBe(false);
    expect(hasCoherentPrice({ transactionType: 0, propertyType: 0, pricePerMeter: 30_001 })).toBe(false);
  });

  it('drops a sale price that is really a monthly rent, and a rent that is really a sale price', () => {
    expect(hasCoherentPrice({ transactionType: 0, propertyType: 0, pricePerMeter: 18 })).toBe(false);
    expect(hasCoherentPrice({ transactionType: 1, propertyType: 0, pricePerMeter: 18 })).toBe(true);
    expect(hasCoherentPrice({ transactionType: 1, propertyType: 0, pricePerMeter: 4_500 })).toBe(false);
  });

  it('keeps a property without a price per m², or of a type outside the enums', () => {
    expect(hasCoherentPrice({ transactionType: 0, propertyType: 0, pricePerMeter: null })).toBe(true);
    expect(hasCoherentPrice({ transactionType: 0, propertyType: 9, pricePerMeter: 1 })).toBe(true);
    expect(hasCoherentPrice({ transactionType: 7, propertyType: 0, pricePerMeter: 1 })).toBe(true);
  });
});
