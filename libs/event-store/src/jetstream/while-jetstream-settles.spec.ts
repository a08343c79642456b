import { ErrorCode, NatsError } from 'nats';
import { whileJetStreamSettles } from './while-jetstream-settles';

describe('whileJetStreamSettles', () => {
  it('runs the step again while JetStream has no responder or times out, then answers its result', async () => {
    const step = jest
      .fn()
      .mockRejectedValueOnce(new NatsError('503', ErrorCode.NoResponders))
      .mockRejectedValueOnce(new NatsError('timeout', ErrorCode.Timeout))
      .mockResolvedValue('stream');
    expect(await whileJetStreamSettles(step, 5000)).toBe('stream');
    expect(step).toHaveBeenCalledTimes(3);
  });

  it('leaves any other error to the caller at once', async () => {
    const step = jest.fn().mockRejectedValue(new NatsError('stream name already in use with a different configuration', ErrorCode.JetStreamInvalidAck));
    await expect(whileJetStreamSettles(step, 5000)).rejects.toThrow(/already in use/);
    expect(step).toHaveBeenCalledTimes(1);
  });

  it('gives up after its time with the last error', async () => {
    const step = jest.fn().mockRejectedValue(new NatsError('503', ErrorCode.NoResponders));
    await expect(whileJetStreamSettles(step, 600)).rejects.toThrow('503');
    expect(step.mock.calls.length).toBeGreaterThan(1);
  });
});
