/** One message of a search's live stream as a client reads it. */
export interface SseMessage {
  id: string;
  /** `message` when the block names no event, as EventSource does. */
  event: string;
  data: string;
}

/**
 * One Server-Sent Events block (the text between two blank lines) read as EventSource reads it:
 * its `id`, `event` and `data` fields, several `data` lines joined by newlines, one space after
 * the colon dropped. Null for a block without data: a comment (`: keep-alive`) or `retry:`.
 */
export function parseSseBlock(block: string): SseMessage | null {
  const message: SseMessage = { id: '', event: 'message', data: '' };
  let hasData = false;
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const field = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') message.id = value;
    else if (field === 'event') message.event = value;
    else if (field === 'data') {
      message.data += hasData ? `\n${value}` : value;
      hasData = true;
    }
  }
  return hasData ? message : null;
}
