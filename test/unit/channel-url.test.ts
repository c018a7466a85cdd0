import { describe, expect, it } from 'vitest';
import { maskedChannelUrl } from '../../src/http/schemas/notification-channels.js';

describe('maskedChannelUrl: a channel URL as responses show it', () => {
  it('keeps scheme, host, port and the first path segment; hides the rest, the query, the fragment and user info', () => {
    const cases: [string, string][] = [
      ['https://hooks.slack.com/services/T0001/B0002/XXXXsecret', 'https://hooks.slack.com/services/…'],
      ['https://discord.com/api/webhooks/123/tok3n/slack', 'https://discord.com/api/…'],
      ['https://chat.example.com/hooks/abcdef', 'https://chat.example.com/hooks/…'],
      ['https://ops.example.com/punctual?token=s3cret', 'https://ops.example.com/punctual/…'],
      ['https://user:pw@ops.example.com:8443/in', 'https://ops.example.com:8443/in'],
      ['http://127.0.0.1:9000/', 'http://127.0.0.1:9000/'],
      ['http://127.0.0.1:9000/?k=v', 'http://127.0.0.1:9000/…'],
      ['not a url', '…'],
    ];
    for (const [url, shown] of cases) expect(maskedChannelUrl(url), url).toBe(shown);
  });
});
