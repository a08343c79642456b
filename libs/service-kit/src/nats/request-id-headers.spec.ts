import { headers } from 'nats';
import { REQUEST_ID_HEADER, requestContextOf, runInRequestContext } from '../logging/request-context';
import { requestIdHeaders, requestIdOfHeaders } from './request-id-headers';

describe('request id headers', () => {
  describe('given a message’s headers', () => {
    it('when they carry an id, then it is read whatever the header name’s case', () => {
      const carrying = headers();
      carrying.set('x-request-id', 'crawl-0042');

      expect(requestIdOfHeaders(carrying)).toBe('crawl-0042');
    });

    it('when they carry none, an unusable one, or there are no headers, then there is no id', () => {
      const unusable = headers();
      unusable.set(REQUEST_ID_HEADER, 'x'.repeat(129));

      expect(requestIdOfHeaders(headers())).toBeNull();
      expect(requestIdOfHeaders(unusable)).toBeNull();
      expect(requestIdOfHeaders(undefined)).toBeNull();
    });
  });

  describe('given a request to send', () => {
    it('when an id is given, then the headers carry it', () => {
      expect(requestIdHeaders('crawl-0042')?.get(REQUEST_ID_HEADER)).toBe('crawl-0042');
    });

    it('when none is given, then they carry the id of the request being handled, and there are none outside one', () => {
      const inside = runInRequestContext(requestContextOf('crawl-0043'), () => requestIdHeaders());

      expect(inside?.get(REQUEST_ID_HEADER)).toBe('crawl-0043');
      expect(requestIdHeaders()).toBeUndefined();
    });

    it('then what is written is read back', () => {
      expect(requestIdOfHeaders(requestIdHeaders('crawl-0044'))).toBe('crawl-0044');
    });
  });
});
