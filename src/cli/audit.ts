/**
 * `punctual audit list`: the audit log (docs/keys-and-audit.md), through the API (`PUNCTUAL_URL` and
 * `PUNCTUAL_TOKEN`, or `--url` and `--token`; the key needs the `keys:manage` scope).
 */
import { Option, type Command } from 'commander';
import type { AuditEvent, AuditEventQuery } from '../client/index.js';
import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES } from '../domain/audit.js';
import { action, clientFrom, withApiOptions, type ApiOptions } from './connect.js';
import { listTable, out, printJson } from './output.js';

interface ListOptions extends ApiOptions {
  action?: AuditEventQuery['action'];
  resourceType?: AuditEventQuery['resourceType'];
  resourceId?: string;
  actor?: string;
  from?: string;
  to?: string;
  limit?: string;
  cursor?: string;
}

function actorText(a: AuditEvent['actor']): string {
  return typeof a === 'string' ? a : a.keyName;
}

/** The changes of an event in one cell: `field: before → after`, one per line. */
function changesText(changes: AuditEvent['changes']): string {
  const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  return Object.entries(changes)
    .map(([name, c]) => `${name}: ${'before' in c ? show(c.before) : ''}${'before' in c && 'after' in c ? ' → ' : ''}${'after' in c ? show(c.after) : ''}`)
    .join('\n');
}

/** Adds the `audit` command group to `program`. */
export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('read the audit log (who changed what), through the API');
  withApiOptions(
    audit
      .command('list')
      .description('list audit events, newest first (one page; --cursor for the next)')
      .addOption(new Option('--action <action>', 'only this action').choices(AUDIT_ACTIONS))
      .addOption(new Option('--resource-type <type>', 'only this kind of resource').choices(AUDIT_RESOURCE_TYPES))
      .option('--resource-id <id>', 'only this resource')
      .option('--actor <keyId>', 'only changes made with this API key')
      .option('--from <instant>', 'only events at or after this ISO 8601 instant')
      .option('--to <instant>', 'only events before this ISO 8601 instant')
      .option('--limit <n>', 'events per page (1–1,000; default 100)')
      .option('--cursor <cursor>', 'the nextCursor of the previous page'),
  ).action(
    action(async (opts: ListOptions) => {
      const query: AuditEventQuery = {
        ...(opts.action && { action: opts.action }),
        ...(opts.resourceType && { resourceType: opts.resourceType }),
        ...(opts.resourceId && { resourceId: opts.resourceId }),
        ...(opts.actor && { actorKeyId: opts.actor }),
        ...(opts.from && { from: opts.from }),
        ...(opts.to && { to: opts.to }),
        ...(opts.limit && { limit: Number(opts.limit) }),
        ...(opts.cursor && { cursor: opts.cursor }),
      };
      const page = await clientFrom(opts).auditEvents.list(query);
      if (opts.json) return printJson(page);
      if (page.events.length === 0) return out('No audit events match.');
      out(
        listTable(
          ['WHEN', 'ACTOR', 'ACTION', 'RESOURCE', 'CHANGES'],
          page.events.map((e) => [e.occurredAt, actorText(e.actor), e.action, `${e.resourceType} ${e.resourceId}`, changesText(e.changes)]),
        ),
      );
      if (page.nextCursor) out(`More: --cursor ${page.nextCursor}`);
    }),
  );
}
