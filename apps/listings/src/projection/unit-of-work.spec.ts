import { EmbeddedDocumentStore, type CollectionSpec, type DocumentStore, type StoredDocument } from '@immo/document-store';
import { RecordCache, UnitOfWork } from './unit-of-work';

interface Note extends StoredDocument {
  text: string;
}

const NOTES: CollectionSpec = { name: 'notes', indexes: [] };
const TAGS: CollectionSpec = { name: 'tags', indexes: [] };
const CHECKPOINTS: CollectionSpec = { name: 'checkpoints', indexes: [] };

const note = (id: string, revision: number, text: string): Note => ({ _id: id, revision, text });

describe('UnitOfWork', () => {
  let store: EmbeddedDocumentStore;
  let uow: UnitOfWork;

  beforeEach(() => {
    store = new EmbeddedDocumentStore();
    for (const spec of [NOTES, TAGS, CHECKPOINTS]) store.collection(spec);
    uow = new UnitOfWork(store);
  });

  afterEach(() => store.close());

  describe('reads', () => {
    it('given a pending write, when reading its id, then the pending document is answered without loading', async () => {
      uow.put(NOTES.name, note('n1', 2, 'pending'));
      const load = jest.fn(() => Promise.resolve(note('n1', 1, 'stored')));

      const read = await uow.read<Note>(NOTES.name, 'n1', load);

      expect(read?.text).toBe('pending');
      expect(load).not.toHaveBeenCalled();
    });

    it('given no pending write for the id, when reading, then the loader is asked for that id', async () => {
      uow.put(NOTES.name, note('n1', 2, 'pending'));
      const load = jest.fn((id: string) => Promise.resolve(id === 'n2' ? note('n2', 1, 'stored') : null));

      const read = await uow.read<Note>(NOTES.name, 'n2', load);

      expect(read?.text).toBe('stored');
      expect(load).toHaveBeenCalledWith('n2');
    });

    it('given a pending write in another collection under the same id, when reading, then it is not mistaken for this one', async () => {
      uow.put(TAGS.name, note('n1', 2, 'a tag'));

      const read = await uow.read<Note>(NOTES.name, 'n1', () => Promise.resolve(null));

      expect(read).toBeNull();
      expect(uow.pendingDocument(NOTES.name, 'n1')).toBeUndefined();
      expect(uow.pendingDocument<Note>(TAGS.name, 'n1')?.text).toBe('a tag');
    });

    it('given a unit of work built without a cache, when an id is read twice, then it is loaded twice (nothing is kept across reads)', async () => {
      const load = jest.fn((id: string) => Promise.resolve(note(id, 1, 'stored')));

      await uow.read<Note>(NOTES.name, 'n1', load);
      await uow.read<Note>(NOTES.name, 'n1', load);

      expect(load).toHaveBeenCalledTimes(2);
    });

    it('given several writes to one id, when reading, then the last one is seen', async () => {
      uow.put(NOTES.name, note('n1', 1, 'first'));
      uow.put(NOTES.name, note('n1', 2, 'second'));
      uow.put(NOTES.name, note('n1', 3, 'third'));

      const read = await uow.read<Note>(NOTES.name, 'n1', () => Promise.resolve(null));

      expect(read?.text).toBe('third');
    });
  });

  describe('while the batch before it commits', () => {
    it('given a write of the committing batch, when reading its id, then it is answered without loading, the own write first', async () => {
      uow.put(NOTES.name, note('n1', 1, 'committing'));
      uow.put(NOTES.name, note('n2', 1, 'committing'));
      uow.addMember('p1', 'a1');
      const next = new UnitOfWork(store, new RecordCache(0), uow);
      next.put(NOTES.name, note('n2', 2, 'own'));
      next.addMember('p1', 'a2');
      const load = jest.fn(() => Promise.resolve(null));

      expect((await next.read<Note>(NOTES.name, 'n1', load))?.text).toBe('committing');
      expect((await next.read<Note>(NOTES.name, 'n2', load))?.text).toBe('own');
      expect(load).not.toHaveBeenCalled();
      expect([...next.membersOf('p1')].sort()).toEqual(['a1', 'a2']);
      // Its own commit holds only its own writes.
      expect(next.isEmpty()).toBe(false);
    });

    it('given the batch before committed, when reading, then the store answers (the earlier writes are let go)', async () => {
      uow.put(NOTES.name, note('n1', 1, 'committed'));
      uow.addMember('p1', 'a1');
      const next = new UnitOfWork(store, new RecordCache(0), uow);
      await uow.commit(CHECKPOINTS.name);
      next.previousCommitted();
      const load = jest.fn((id: string) => Promise.resolve(note(id, 5, 'from the store')));

      expect((await next.read<Note>(NOTES.name, 'n1', load))?.text).toBe('from the store');
      expect([...next.membersOf('p1')]).toEqual([]);
      expect(next.isEmpty()).toBe(true);
    });
  });

  describe('members', () => {
    it('given no member added for a property, when asked, then the set is empty', () => {
      expect([...uow.membersOf('p1')]).toEqual([]);
    });

    it('given members added, when asked, then each property lists its own adverts once', () => {
      uow.addMember('p1', 'a1');
      uow.addMember('p1', 'a2');
      uow.addMember('p1', 'a1');
      uow.addMember('p2', 'a3');

      expect([...uow.membersOf('p1')].sort()).toEqual(['a1', 'a2']);
      expect([...uow.membersOf('p2')]).toEqual(['a3']);
    });

    it('given two units of work, when one adds a member, then the empty answer of the other is not affected', () => {
      const other = new UnitOfWork(store);
      const emptyBefore = other.membersOf('p1');

      uow.addMember('p1', 'a1');

      expect(emptyBefore.size).toBe(0);
      expect(other.membersOf('p1').size).toBe(0);
    });
  });

  describe('emptiness', () => {
    it('given nothing written, when asked, then it is empty', () => {
      expect(uow.isEmpty()).toBe(true);
    });

    it('given only a checkpoint, when asked, then it is not empty', () => {
      uow.checkpoint('p', 4);

      expect(uow.isEmpty()).toBe(false);
    });

    it('given only a document, when asked, then it is not empty', () => {
      uow.put(NOTES.name, note('n1', 1, 'x'));

      expect(uow.isEmpty()).toBe(false);
    });

    it('given events counted, when asking its size, then it is the number of events', () => {
      uow.events += 3;

      expect(uow.size).toBe(3);
    });
  });

  describe('commit', () => {
    it('given documents in two collections and two checkpoints, when committing, then everything goes in one store commit, documents before checkpoints', async () => {
      const commit = jest.spyOn(store, 'commit');
      uow.put(NOTES.name, note('n1', 5, 'one'));
      uow.put(TAGS.name, note('t1', 5, 'tag'));
      uow.checkpoint('advert-states', 5);
      uow.checkpoint('property-documents', 4);

      await uow.commit(CHECKPOINTS.name);

      expect(commit).toHaveBeenCalledTimes(1);
      const writes = commit.mock.calls[0]?.[0] ?? [];
      expect(writes).toHaveLength(4);
      expect(writes.slice(0, 2)).toEqual(
        expect.arrayContaining([
          { collection: NOTES.name, upsert: note('n1', 5, 'one') },
          { collection: TAGS.name, upsert: note('t1', 5, 'tag') },
        ]),
      );
      expect(writes.slice(2)).toEqual(
        expect.arrayContaining([
          { collection: CHECKPOINTS.name, upsert: { _id: 'advert-states', revision: 5, position: 5 } },
          { collection: CHECKPOINTS.name, upsert: { _id: 'property-documents', revision: 4, position: 4 } },
        ]),
      );
    });

    it('given a commit, when reading the store afterwards, then the documents and checkpoints are stored', async () => {
      uow.put(NOTES.name, note('n1', 5, 'one'));
      uow.checkpoint('advert-states', 5);

      await uow.commit(CHECKPOINTS.name);

      expect(await store.collection<Note>(NOTES).findById('n1')).toEqual(note('n1', 5, 'one'));
      expect(await store.collection(CHECKPOINTS).findById('advert-states')).toEqual({ _id: 'advert-states', revision: 5, position: 5 });
    });

    it('given several writes to one id, when committing, then only the last is written', async () => {
      const commit = jest.spyOn(store, 'commit');
      uow.put(NOTES.name, note('n1', 1, 'first'));
      uow.put(NOTES.name, note('n1', 2, 'last'));

      await uow.commit(CHECKPOINTS.name);

      expect(commit.mock.calls[0]?.[0]).toEqual([{ collection: NOTES.name, upsert: note('n1', 2, 'last') }]);
      expect((await store.collection<Note>(NOTES).findById('n1'))?.text).toBe('last');
    });

    it('given a projection checkpointed twice, when committing, then only its last position is written', async () => {
      const commit = jest.spyOn(store, 'commit');
      uow.checkpoint('advert-states', 3);
      uow.checkpoint('advert-states', 9);

      await uow.commit(CHECKPOINTS.name);

      expect(commit.mock.calls[0]?.[0]).toEqual([{ collection: CHECKPOINTS.name, upsert: { _id: 'advert-states', revision: 9, position: 9 } }]);
    });

    it('given nothing written, when committing, then the store is not called', async () => {
      const commit = jest.spyOn(store, 'commit');

      await uow.commit(CHECKPOINTS.name);

      expect(commit).not.toHaveBeenCalled();
    });

    it('given only members added, when committing, then the store is not called (members are not documents)', async () => {
      const commit = jest.spyOn(store, 'commit');
      uow.addMember('p1', 'a1');

      await uow.commit(CHECKPOINTS.name);

      expect(commit).not.toHaveBeenCalled();
    });

    it('given the store refuses the commit, when committing, then the failure reaches the caller', async () => {
      const failing = { commit: () => Promise.reject(new Error('disk full')) } as unknown as DocumentStore;
      const work = new UnitOfWork(failing);
      work.checkpoint('advert-states', 1);

      await expect(work.commit(CHECKPOINTS.name)).rejects.toThrow('disk full');
    });

    it('given a write to a collection the store never opened, when committing, then nothing at all is stored', async () => {
      uow.put(NOTES.name, note('n1', 1, 'one'));
      uow.put('unknown', note('u1', 1, 'lost'));
      uow.checkpoint('advert-states', 1);

      await expect(uow.commit(CHECKPOINTS.name)).rejects.toThrow(/unknown/);

      // One transaction: the note and the checkpoint are not stored without the failed write.
      expect(await store.collection(NOTES).findById('n1')).toBeNull();
      expect(await store.collection(CHECKPOINTS).findById('advert-states')).toBeNull();
    });
  });

  describe('record cache across batches', () => {
    it('given a cache limited to the collections read back, when a batch writes others, then only the named ones are cached', async () => {
      const cache = new RecordCache(10, new Set([NOTES.name]));
      const first = new UnitOfWork(store, cache);
      first.put(NOTES.name, note('n1', 1, 'kept'));
      first.put(TAGS.name, note('t1', 1, 'write-only'));
      await first.commit(CHECKPOINTS.name);

      const next = new UnitOfWork(store, cache);
      const load = jest.fn((id: string) => Promise.resolve(note(id, 1, 'from the store')));
      await expect(next.read(NOTES.name, 'n1', load)).resolves.toMatchObject({ text: 'kept' });
      expect(load).not.toHaveBeenCalled();
      expect(cache.get(TAGS.name, 't1')).toBeUndefined();
    });
  });
});
