describe('the EventStoreDB adapter', () => {
  it('is loaded only when chosen: the package loads without it', async () => {
    await jest.isolateModulesAsync(async () => {
      jest.doMock('./eventstoredb/eventstoredb-event-store', () => {
        throw new Error('the EventStoreDB adapter was loaded');
      });
      const eventStore = await import('./index');
      expect(eventStore.JetStreamEventStore).toBeDefined();
      expect(() => eventStore.connectEventStoreDb('esdb://127.0.0.1:9?tls=false')).toThrow('the EventStoreDB adapter was loaded');
    });
  });
});
