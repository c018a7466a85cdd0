/**
 * Routes of /notification-channels, with GET/PATCH/DELETE /notification-channels/{id} and
 * POST /notification-channels/{id}/test (docs/interface.md, docs/when-calls-fail.md).
 */
import { auditContext } from '../request-id.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NotFoundError } from '../../domain/errors.js';
import type { NotificationChannel } from '../../domain/notifications.js';
import {
  channelToTest,
  createChannel,
  deleteChannel,
  getChannel,
  listChannels,
  updateChannel,
} from '../../service/notification-channels.js';
import { ruleContext } from '../../service/rules.js';
import { IdParams, NoQuery } from '../schemas/common.js';
import {
  ChannelCreateBody,
  ChannelListSchema,
  ChannelPatchBody,
  ChannelSchema,
  ChannelTestSchema,
  channelToWire,
  type ChannelTestWire,
} from '../schemas/notification-channels.js';
import { AUTHENTICATED, jsonResponse, problemResponses } from '../schemas/operations.js';
import type { RouteDeps } from './deps.js';
import { createRoute, deleteRoute, getByIdRoute, operationHead, readSchema, updateRoute } from './operations.js';

/** What the routes of notification channels are registered with. */
export interface ChannelRouteDeps extends RouteDeps {
  /**
   * Sends the test message to a channel at once and says how the receiver took it (the server's
   * notification sender; `startServer` always gives it). Absent: the test route answers 404.
   */
  testChannel?: (channel: NotificationChannel) => Promise<ChannelTestWire>;
}

const TAGS = ['Notification channels' as const];

/** POST/GET /notification-channels, GET/PATCH/DELETE /notification-channels/{id}, POST …/{id}/test. */
export const notificationChannelRoutes: FastifyPluginAsyncTypebox<ChannelRouteDeps> = async (app, { ctx, testChannel }) => {
  const { store, clock } = ctx;
  const rules = ruleContext(ctx);

  createRoute(app, {
    path: '/notification-channels',
    text: {
      operationId: 'createNotificationChannel',
      scope: 'keys:manage',
      tags: TAGS,
      summary: 'Create a notification channel',
      description:
        'Creates a channel: the events given are sent to `url` from now on, as a signed JSON webhook or a Slack message ' +
        '(docs/when-calls-fail.md). The URL is checked by the SSRF guard as job endpoints are.',
    },
    body: ChannelCreateBody,
    answer: 'The new channel.',
    schema: ChannelSchema,
    create: (body, req) => createChannel(store, clock, body, rules, auditContext(req)),
    toWire: channelToWire,
  });

  app.get(
    '/notification-channels',
    {
      schema: readSchema(
        { scope: 'keys:manage', operationId: 'listNotificationChannels', tags: TAGS, summary: 'List notification channels', description: 'Every channel, oldest first.' },
        NoQuery,
        'Every channel.',
        ChannelListSchema,
      ),
    },
    async () => {
      const channels = await listChannels(store);
      return { size: channels.length, notificationChannels: channels.map(channelToWire) };
    },
  );

  getByIdRoute(
    app,
    '/notification-channels/:id',
    {
      operationId: 'getNotificationChannel',
      scope: 'keys:manage',
      tags: TAGS,
      summary: 'Retrieve a notification channel',
      description: 'The channel; `null` (with 200) when no channel has this id.',
    },
    'The channel, or null when no channel has this id.',
    ChannelSchema,
    (id) => getChannel(store, id),
    channelToWire,
  );

  updateRoute(app, {
    path: '/notification-channels/:id',
    text: {
      operationId: 'updateNotificationChannel',
      scope: 'keys:manage',
      tags: TAGS,
      summary: 'Update a notification channel',
      description: 'Absent fields keep their values; `jobIds: null` sends the events of every job. Applies to outcomes from now on.',
    },
    body: ChannelPatchBody,
    answer: 'The channel as updated.',
    schema: ChannelSchema,
    update: (id, body, req) => updateChannel(store, id, body, rules, auditContext(req)),
    toWire: channelToWire,
  });

  deleteRoute(
    app,
    '/notification-channels/:id',
    {
      operationId: 'deleteNotificationChannel',
      scope: 'keys:manage',
      tags: TAGS,
      summary: 'Delete a notification channel',
      description: 'Deletes the channel and its notifications not yet sent.',
    },
    (id, req) => deleteChannel(store, id, auditContext(req)),
  );

  app.post(
    '/notification-channels/:id/test',
    {
      schema: {
        ...operationHead({
          operationId: 'testNotificationChannel',
          scope: 'keys:manage',
          tags: TAGS,
          summary: 'Send a test message',
          description:
            'Sends a test message (type `notifications.test`) to the channel at once, and answers 200 with how the receiver took it: ' +
            'its status code, the duration and, unless it answered 2xx, why it failed. Not retried.',
        }),
        params: IdParams,
        querystring: NoQuery,
        response: { 200: jsonResponse('How the receiver took the message.', ChannelTestSchema), ...problemResponses(400, 404, ...AUTHENTICATED) },
      },
    },
    async (req) => {
      const channel = await channelToTest(store, req.params.id);
      if (!testChannel) throw new NotFoundError('This server has no notification sender.');
      return testChannel(channel);
    },
  );
};
