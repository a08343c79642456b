import { describeDocumentStoreContract } from '../document-store.contract';
import { MongoDocumentStore } from './mongo-document-store';

const url = process.env['MONGO_URL'];

if (url) {
  // A throwaway database per run, dropped at the end, so runs never see each other's data.
  const dbName = `document_store_contract_${process.pid}_${Date.now()}`;
  let store: MongoDocumentStore | undefined;
  describeDocumentStoreContract(
    'mongo',
    () => (store = new MongoDocumentStore({ url, dbName })),
    { teardown: async () => store?.dropDatabase() },
  );
} else {
  describe('MongoDB document store contract', () => {
    it('is skipped without MONGO_URL', () => {
      expect(url ?? '').toBe('');
      process.stdout.write('skipped: MONGO_URL not set (MongoDB document store contract)\n');
    });
  });
}
