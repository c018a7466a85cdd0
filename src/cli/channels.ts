/**
 * `punctual channels list|create|delete|test`: notification channels (docs/when-calls-fail.md),
 * through the API (`PUNCTUAL_URL` and `PUNCTUAL_TOKEN`, or `--url` and `--token`).
 */
import { Option, type Command } from 'commander';
import type { NotificationChannel, NotificationChannelCreate } from '../client/index.js';
import { CHANNEL_TYPES, NOTIFICATION_EVENTS } from '../domain/notifications.js';
import { action, clientFrom, withApiOptions, type ApiOptions } from './connect.js';
import { listTable, out, printJson } from './output.js';

function channelsTable(channels: NotificationChannel[]): string {
  return listTable(
    ['ID', 'NAME', 'TYPE', 'EVENTS', 'JOBS', 'URL'],
    channels.map((c) => [c.id, c.name, c.type, c.events.join(' '), c.jobIds === null ? 'all' : c.jobIds.join(' '), c.url]),
  );
}

interface CreateOptions extends ApiOptions {
  type: NotificationChannelCreate['type'];
  event: NotificationChannelCreate['events'];
  job?: string[];
}

/** Adds the `channels` command group to `program`. */
export function registerChannelCommands(program: Command): void {
  const channels = program.command('channels').description('manage notification channels (where failures are announced), through the API');

  withApiOptions(channels.command('list').description('list notification channels')).action(
    action(async (opts: ApiOptions) => {
      const list = await clientFrom(opts).notificationChannels.list();
      if (opts.json) return printJson(list);
      out(list.notificationChannels.length === 0 ? 'No notification channels yet: punctual channels create <name> <url> --event …' : channelsTable(list.notificationChannels));
    }),
  );

  withApiOptions(
    channels
      .command('create')
      .argument('<name>', 'name of the channel')
      .argument('<url>', 'where notifications are POSTed (checked by the SSRF guard)')
      .description('create a notification channel')
      .addOption(new Option('--type <type>', 'webhook: signed JSON; slack: a Slack incoming-webhook message').choices(CHANNEL_TYPES).default('webhook'))
      .addOption(
        new Option('--event <event...>', 'events to send (repeatable)').choices(NOTIFICATION_EVENTS).makeOptionMandatory(),
      )
      .option('--job <id...>', 'only the events of these jobs (repeatable; default every job)'),
  ).action(
    action(async (name: string, url: string, opts: CreateOptions) => {
      const created = await clientFrom(opts).notificationChannels.create({
        name,
        type: opts.type,
        url,
        events: opts.event,
        ...(opts.job && { jobIds: opts.job }),
      });
      if (opts.json) return printJson(created);
      out(`Created notification channel "${created.name}" (${created.id}, ${created.type}): ${created.events.join(', ')}.`);
    }),
  );

  withApiOptions(channels.command('delete').argument('<id>', 'id of the channel').description('delete a notification channel')).action(
    action(async (id: string, opts: ApiOptions) => {
      await clientFrom(opts).notificationChannels.delete(id);
      if (!opts.json) out(`Deleted notification channel ${id}.`);
    }),
  );

  withApiOptions(
    channels.command('test').argument('<id>', 'id of the channel').description('send a test message to a channel now and show how its receiver answered'),
  ).action(
    action(async (id: string, opts: ApiOptions) => {
      const result = await clientFrom(opts).notificationChannels.test(id);
      if (opts.json) return printJson(result);
      const answered = result.statusCode === null ? 'no answer' : `HTTP ${result.statusCode}`;
      out(result.error === null ? `Delivered (${answered}, ${result.durationMs} ms).` : `Not delivered: ${result.error} (${answered}, ${result.durationMs} ms).`);
      if (result.error !== null) process.exitCode = 1;
    }),
  );
}
