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
  process.stdout.write('skipped: MONGO_URL not set (MongoDB document store contract)\n');
  // A Jest skip, not a passing placeholder, so the summary counts the contract as not run.
  describe.skip('document store contract [mongo] (skipped: MONGO_URL not set)', () => {
    it('runs the document store contract against MongoDB', () => undefined);
  });
}
