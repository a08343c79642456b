import { parseSseBlock } from './sse-block';

describe('parseSseBlock', () => {
  it('reads the id, event and data of a block as the live stream writes it', () => {
    expect(parseSseBlock('id: 42\nevent: match\ndata: {"a":1}')).toEqual({ id: '42', event: 'match', data: '{"a":1}' });
  });

  it('joins several data lines with newlines, defaults the event to message, and drops only one space', () => {
    expect(parseSseBlock('data:first\ndata:  second')).toEqual({ id: '', event: 'message', data: 'first\n second' });
  });

  it('gives no message for a comment, a retry field or a line without a field name', () => {
    expect(parseSseBlock(': keep-alive')).toBeNull();
    expect(parseSseBlock('retry: 3000')).toBeNull();
    expect(parseSseBlock(':data: not a field')).toBeNull();
  });
});
